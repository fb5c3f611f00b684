package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestSequenceGradients checks layer normalization, the segment poolings, softmax,
// attention and the GRU against finite differences.
func TestSequenceGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	r := func(rows, cols int) *Tensor { return randVar(rng, rows, cols, -2, 2) }
	offsets := []int{0, 3, 4, 4, 9} // sizes 3, 1, 0 and 5
	nonEmpty := []int{0, 2, 3, 7}
	cases := []gradCase{
		{"LayerNorm/rows", []*Tensor{r(3, 6), r(1, 6), r(1, 6)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.LayerNorm(in[0], in[1], in[2], 6, 1e-5) }},
		{"LayerNorm/channels", []*Tensor{r(3, 12), r(1, 4), r(1, 4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.LayerNorm(in[0], in[1], in[2], 4, 1e-5) }},
		{"LayerNorm/plain", []*Tensor{r(4, 5)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.LayerNorm(in[0], nil, nil, 5, 1e-3) }},
		// variance 0 (eps 1e-2: at 1e-5 the third derivative, eps^-1.5, spoils the differences)
		{"LayerNorm/constant rows", []*Tensor{NewVariable(2, 4, []float64{1.5, 1.5, 1.5, 1.5, -2, -2, -2, -2}), r(1, 4), r(1, 4)},
			func(tp *Tape, in []*Tensor) *Tensor { return tp.LayerNorm(in[0], in[1], in[2], 4, 1e-2) }},
		{"SegmentSum", []*Tensor{r(9, 3)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.SegmentSum(in[0], offsets) }},
		{"SegmentMean", []*Tensor{r(7, 3)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.SegmentMean(in[0], nonEmpty) }},
		{"SegmentMax", []*Tensor{r(7, 3)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.SegmentMax(in[0], nonEmpty) }},
		{"DeepSet", []*Tensor{r(7, 2), r(2, 4), r(1, 4), r(4, 2)}, func(tp *Tape, in []*Tensor) *Tensor {
			phi := tp.Tanh(tp.Linear(in[0], in[1], in[2]))
			return tp.MatMul(tp.SegmentMean(phi, nonEmpty), in[3])
		}},
		{"Softmax", []*Tensor{r(3, 5)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.Softmax(in[0]) }},
	}
	for _, c := range []AttentionConfig{{Length: 4}, {Length: 3, Heads: 2}, {Length: 5, Heads: 2, Causal: true}, {Length: 1}} {
		c := c
		rows := 2 * c.Length
		cases = append(cases, gradCase{fmt.Sprintf("Attention/%+v", c), []*Tensor{r(rows, 4), r(rows, 4), r(rows, 6)},
			func(tp *Tape, in []*Tensor) *Tensor { return tp.Attention(in[0], in[1], in[2], c) }})
	}
	cases = append(cases,
		gradCase{"GRU", []*Tensor{r(3, 4*2), r(2, 9), r(3, 9), r(1, 9), r(1, 9)}, func(tp *Tape, in []*Tensor) *Tensor {
			return tp.GRU(in[0], in[1], in[2], in[3], in[4], 4)
		}},
		gradCase{"GRUNoBias", []*Tensor{r(2, 5*1), r(1, 6), r(2, 6)}, func(tp *Tape, in []*Tensor) *Tensor {
			return tp.GRU(in[0], in[1], in[2], nil, nil, 5)
		}},
	)
	cases = append(cases, gradCase{"SelfAttentionBlock", []*Tensor{r(2*5, 4), r(4, 4), r(4, 4), r(4, 4), r(1, 4), r(1, 4)}, func(tp *Tape, in []*Tensor) *Tensor {
		x := in[0]
		a := tp.Attention(tp.MatMul(x, in[1]), tp.MatMul(x, in[2]), tp.MatMul(x, in[3]), AttentionConfig{Length: 5, Heads: 2})
		return tp.LayerNorm(tp.Add(x, a), in[4], in[5], 4, 1e-5)
	}})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkGrad(t, c.name, c.inputs, c.f) })
	}
}

// TestLayerNormValues checks that every group comes out with mean 0 and variance
// 1/(1 + eps/σ²), scaled and shifted by gain and bias.
func TestLayerNormValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(73, 74))
	x := randConst(rng, 5, 12, -3, 5)
	gain, bias := randConst(rng, 1, 4, 0.5, 2), randConst(rng, 1, 4, -1, 1)
	y := NewTape().LayerNorm(x, gain, bias, 4, 1e-5)
	for k := 0; k < 15; k++ {
		var mu, s2, m, v float64
		xs := x.Data[k*4 : (k+1)*4]
		for _, a := range xs {
			mu += a / 4
		}
		for _, a := range xs {
			s2 += (a - mu) * (a - mu) / 4
		}
		for j := range 4 {
			z := (y.Data[k*4+j] - bias.Data[j]) / gain.Data[j]
			m += z / 4
			v += z * z / 4
		}
		if math.Abs(m) > 1e-12 || math.Abs(v-s2/(s2+1e-5)) > 1e-12 {
			t.Fatalf("group %d: normalized mean %v and variance %v, want 0 and %v", k, m, v, s2/(s2+1e-5))
		}
	}
}

// TestSegmentValues checks the segment poolings on a hand-worked example, their invariance
// under permutations of the elements within segments, and that bad offsets are refused.
func TestSegmentValues(t *testing.T) {
	x := NewTensor(5, 2, []float64{1, -1, 3, 4, 2, 0, 7, 7, -2, 5})
	off := []int{0, 3, 5}
	tp := NewTape()
	for _, c := range []struct {
		got  *Tensor
		want string
	}{
		{tp.SegmentSum(x, off), "[6 3 5 12]"},
		{tp.SegmentMean(x, off), "[2 1 2.5 6]"},
		{tp.SegmentMax(x, off), "[3 4 7 7]"},
		{tp.SegmentSum(x, []int{0, 0, 5}), "[0 0 11 15]"},
	} {
		if fmt.Sprint(c.got.Data) != c.want {
			t.Errorf("got %v, want %v", c.got.Data, c.want)
		}
	}
	perm := NewTensor(5, 2, []float64{2, 0, 1, -1, 3, 4, -2, 5, 7, 7}) // rows permuted within segments
	if a, b := tp.SegmentMean(x, off).Data, tp.SegmentMean(perm, off).Data; fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("mean changes under a permutation: %v and %v", a, b)
	}
	for _, bad := range [][]int{{0, 3}, {1, 5}, {0, 4, 3, 5}, {0, 5, 5}, {}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("offsets %v for 5 rows were not refused by SegmentMean", bad)
				}
			}()
			tp.SegmentMean(x, bad)
		}()
	}
}

// TestAttentionMatchesReference checks the batched attention against direct loops.
func TestAttentionMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(75, 76))
	for _, c := range []AttentionConfig{{Length: 17, Heads: 1}, {Length: 9, Heads: 3, Causal: true}} {
		const n, d, dv = 40, 12, 6
		q, k, v := randConst(rng, n*c.Length, d, -1, 1), randConst(rng, n*c.Length, d, -1, 1), randConst(rng, n*c.Length, dv, -1, 1)
		got := NewTape().Attention(q, k, v, c).Data
		want := attentionRef(q.Data, k.Data, v.Data, n*c.Length, d, dv, c)
		for i := range want {
			if !(math.Abs(got[i]-want[i]) <= 1e-13) {
				t.Fatalf("%+v: output %d is %v, the direct loops give %v", c, i, got[i], want[i])
			}
		}
	}
}

// TestGRUMatchesReference checks the GRU's batched recurrence against the recurrence written
// out per unit.
func TestGRUMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(79, 80))
	const n, length, in, hid = 30, 12, 3, 5
	x := randConst(rng, n, length*in, -1, 1)
	wi, wh := randConst(rng, in, 3*hid, -0.7, 0.7), randConst(rng, hid, 3*hid, -0.7, 0.7)
	bi, bh := randConst(rng, 1, 3*hid, -0.5, 0.5), randConst(rng, 1, 3*hid, -0.5, 0.5)
	got := NewTape().GRU(x, wi, wh, bi, bh, length).Data
	want := gruRef(x.Data, wi.Data, wh.Data, bi.Data, bh.Data, n, length, in, hid)
	for i := range want {
		if !(math.Abs(got[i]-want[i]) <= 1e-13) {
			t.Fatalf("state value %d is %v, the written-out recurrence gives %v", i, got[i], want[i])
		}
	}
}

// TestEmbeddingOpsStepAllocatesNothing runs training steps of a network made of the new
// operations (convolution, pooling, layer normalization, attention, segment pooling, GRU) and
// checks that a steady-state step allocates nothing. The noasm build's products are gonum's
// Dgemm, which allocates for its own goroutines (see the package doc): there the test says so
// and stops.
func TestEmbeddingOpsStepAllocatesNothing(t *testing.T) {
	if !fastKernelBuild {
		t.Skip("noasm build: gonum's Dgemm allocates for its goroutines; the promise holds for the default and openblas builds")
	}
	rng := rand.New(rand.NewPCG(77, 78))
	const n, L = 32, 20
	x := randConst(rng, n, L*2, -1, 1)
	w1, b1 := NewParam("w1", 3*2, 8), NewParam("b1", 1, 8)
	wq, g, b := NewParam("wq", 8, 8), NewParam("g", 1, 8), NewParam("b", 1, 8)
	w2 := NewParam("w2", 8, 1)
	gi, gh, gbi, gbh := NewParam("gi", 8, 12), NewParam("gh", 4, 12), NewParam("gbi", 1, 12), NewParam("gbh", 1, 12)
	w3 := NewParam("w3", 4, 1)
	ps := []*Param{w1, b1, wq, g, b, w2, gi, gh, gbi, gbh, w3}
	for _, p := range ps {
		InitUniform(p, rng, 0.5)
	}
	opt := NewAdam(ps, 1e-3)
	offsets := []int{0}
	for i := 0; i < n; i++ {
		offsets = append(offsets, offsets[i]+L/2)
	}
	tp := NewTape()
	step := func() {
		h := tp.ReLU(tp.Conv1D(x, w1.Tensor, b1.Tensor, Conv1DConfig{Channels: 2, Length: L, Kernel: 3, Padding: 1}))
		h = tp.MaxPool1D(h, Conv1DConfig{Channels: 8, Length: L, Kernel: 2})
		tok := tp.Reshape(h, n*L/2, 8)
		a := tp.Attention(tp.MatMul(tok, wq.Tensor), tok, tok, AttentionConfig{Length: L / 2, Heads: 2, Causal: true})
		a = tp.LayerNorm(tp.Add(tok, a), g.Tensor, b.Tensor, 8, 1e-5)
		s := tp.Add(tp.SegmentMean(a, offsets), tp.GlobalMaxPool(h, 8))
		rec := tp.GRU(h, gi.Tensor, gh.Tensor, gbi.Tensor, gbh.Tensor, L/2)
		last := tp.Columns(rec, (L/2-1)*4, L/2*4)
		loss := tp.Add(tp.Mean(tp.Square(tp.MatMul(s, w2.Tensor))), tp.Mean(tp.Square(tp.MatMul(last, w3.Tensor))))
		tp.Backward(loss)
		opt.Step()
		opt.ZeroGrad()
		tp.Reset()
	}
	step()
	step()
	if allocs := testing.AllocsPerRun(20, step); allocs != 0 {
		t.Errorf("a steady-state step allocates %v times", allocs)
	}
}

// TestGRUEmptyBatch checks that a GRU over a batch of no series returns the 0 × length·H
// result and a backward pass that leaves every gradient at 0, as the convolutions, poolings
// and attention do with no examples, instead of slicing past the end of its empty output.
func TestGRUEmptyBatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	for _, c := range []struct {
		length, in, hid int
		bias            bool
	}{
		{1, 2, 3, true},
		{4, 2, 3, true},
		{4, 1, 1, false},
		{7, 3, 5, false},
	} {
		t.Run(fmt.Sprintf("%+v", c), func(t *testing.T) {
			tp := NewTape()
			x := tp.Variable(0, c.length*c.in, nil)
			wi, wh := randVar(rng, c.in, 3*c.hid, -1, 1), randVar(rng, c.hid, 3*c.hid, -1, 1)
			var bi, bh *Tensor
			if c.bias {
				bi, bh = randVar(rng, 1, 3*c.hid, -1, 1), randVar(rng, 1, 3*c.hid, -1, 1)
			}
			y := tp.GRU(x, wi, wh, bi, bh, c.length)
			if y.Rows != 0 || y.Cols != c.length*c.hid {
				t.Fatalf("result %d×%d, want 0×%d", y.Rows, y.Cols, c.length*c.hid)
			}
			tp.Backward(tp.Sum(y))
			for _, p := range []*Tensor{wi, wh, bi, bh} {
				if p == nil {
					continue
				}
				for i, g := range p.Grad {
					if g != 0 {
						t.Fatalf("gradient %d of a %d×%d parameter is %v, want 0 (no series)", i, p.Rows, p.Cols, g)
					}
				}
			}
		})
	}
}
