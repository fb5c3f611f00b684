package nn

import (
	"fmt"
	"math"
	"testing"
)

// TestAttentionOverflowingScores checks attention whose scores q·k overflow float64 while q
// and k are finite: a score of +Inf made the row's softmax NaN, one of −Inf (a partial sum
// that overflowed) a weight 0 where the true score is ordinary, and +s² − s² (NaN) lost a
// score of 0. Each case has one head of width 2 (or 4) over two positions, v = [7, −3], and
// the output of both positions (they share the keys) from the true scores.
func TestAttentionOverflowingScores(t *testing.T) {
	const s = 1e155
	a := math.Sqrt2 * math.Log(3) / s // q·k = √2·ln 3: weights 1/4 and 3/4 after the 1/√2 scale
	cases := []struct {
		name string
		q, k []float64 // the two rows of each, 2 columns (or 4)
		want float64   // both outputs
	}{
		{"scores 0 (as −s² − s² + s² + s², −Inf after two terms) and 0", []float64{1e154, 1e154, 1e154, 1e154, 1, 1, 1, 1},
			[]float64{-1e154, -1e154, 1e154, 1e154, 0, 0, 0, 0}, 2},
		{"scores +2s² and 0", []float64{s, s, s, s}, []float64{s, s, 0, 0}, 7},
		{"scores 0 (as s² − s²) and 0", []float64{s, s, s, s}, []float64{s, -s, 0, 0}, 2},
		{"scores 0 (as s² − s²) and √2·ln 3", []float64{s, s, s, s}, []float64{s, -s, a, 0}, 0.25*7 + 0.75*-3},
		{"scores −2s² and −2s² (a tie)", []float64{s, s, s, s}, []float64{-s, -s, -s, -s}, 2},
		{"scores +2s² and +1.5s²", []float64{s, s, s, s}, []float64{s, s, s, s / 2}, 7},
		{"scores −2s² and 0", []float64{s, s, s, s}, []float64{-s, -s, 0, 0}, -3},
		{"scores near the largest float64, a tie", []float64{1e308, 1e308, 1e308, 1e308}, []float64{1e308, 0, 0, 1e308}, 2},
	}
	for _, c := range cases {
		for _, grad := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/gradients %v", c.name, grad), func(t *testing.T) {
				tp := NewTape()
				w := len(c.q) / 2
				q, k, v := NewTensor(2, w, c.q), NewTensor(2, w, c.k), NewTensor(2, 1, []float64{7, -3})
				if grad {
					q, k, v = tp.Variable(2, w, c.q), tp.Variable(2, w, c.k), tp.Variable(2, 1, []float64{7, -3})
				}
				o := tp.Attention(q, k, v, AttentionConfig{Length: 2})
				for i, got := range o.Data {
					if !(math.Abs(got-c.want) <= 1e-14) {
						t.Errorf("output %d is %v, want %v", i, got, c.want)
					}
				}
				if !grad {
					return
				}
				tp.Backward(tp.Sum(o))
				for _, g := range [][]float64{q.Grad, k.Grad, v.Grad} {
					for _, x := range g {
						if math.IsNaN(x) {
							t.Fatalf("gradients q %v, k %v, v %v: want no NaN", q.Grad, k.Grad, v.Grad)
						}
					}
				}
				p := (c.want + 3) / 10 // the weight of position 0
				if math.Abs(v.Grad[0]-2*p) > 1e-14 || math.Abs(v.Grad[1]-2*(1-p)) > 1e-14 {
					t.Errorf("gradient of v %v, want [%v %v]", v.Grad, 2*p, 2*(1-p))
				}
			})
		}
	}
}

// TestAttentionOverflowingScoresHeads checks the rescued scores of one head beside an ordinary
// head, with and without the causal mask: head 0 has the scores 0 (as s² − s²) and 0, head 1
// ordinary scores that must match the direct loops.
func TestAttentionOverflowingScoresHeads(t *testing.T) {
	const s = 1e155
	q := []float64{s, s, 0.3, -0.2, s, s, 0.1, 0.5}
	k := []float64{s, -s, 0.7, 0.2, 0, 0, -0.4, 0.9}
	v := []float64{7, 1, -3, 2}
	for _, causal := range []bool{false, true} {
		cfg := AttentionConfig{Length: 2, Heads: 2, Causal: causal}
		got := NewTape().Attention(NewTensor(2, 4, q), NewTensor(2, 4, k), NewTensor(2, 2, v), cfg).Data
		ord := attentionRef(q, k, v, 2, 4, 2, cfg) // head 1 only: head 0 overflows there
		want := []float64{2, ord[1], 2, ord[3]}
		if causal {
			want[0] = 7 // position 0 attends to itself alone
		}
		for i := range want {
			if !(math.Abs(got[i]-want[i]) <= 1e-14) {
				t.Errorf("causal %v: output %d is %v, want %v", causal, i, got[i], want[i])
			}
		}
	}
}
