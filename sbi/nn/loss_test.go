package nn

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/internal/kernels"
)

// softmaxExact returns the softmax and the log-softmax of x with the maximum subtracted
// first, the reference for rows whose log-sum-exp is large.
func softmaxExact(x []float64) (p, logp []float64) {
	m := math.Inf(-1)
	for _, v := range x {
		m = max(m, v)
	}
	s := 0.0
	for _, v := range x {
		s += math.Exp(v - m)
	}
	for _, v := range x {
		p = append(p, math.Exp(v-m)/s)
		logp = append(logp, (v-m)-math.Log(s))
	}
	return p, logp
}

// TestLogSumExpLargeValues checks LogSoftmax's values and LogSumExp's gradient on rows whose
// log-sum-exp is so large that its rounding swallows log Σ exp(a − max): a − result then
// lost the log of the number of maxima (the log-softmax of [1e17, 1e17] came out [0, 0] and
// the gradient of its log-sum-exp [1, 1]).
func TestLogSumExpLargeValues(t *testing.T) {
	rows := [][]float64{
		{1e308, -1e308, 1e308},
		{1e17, 1e17},
		{-1e17, -1e17, -1e17, -1e17},
		{3e6, 3e6 - 1, 3e6 - 40},
		{-5e6 + 2, -5e6, -5e6 + 1},
	}
	for _, row := range rows {
		t.Run(fmt.Sprint(row), func(t *testing.T) {
			p, logp := softmaxExact(row)
			tp := NewTape()
			x := tp.Variable(1, len(row), row)
			tp.Backward(tp.LogSumExp(x))
			y := NewTape().LogSoftmax(NewTensor(1, len(row), row))
			for j := range row {
				if d := math.Abs(x.Grad[j] - p[j]); d > 1e-15 {
					t.Errorf("gradient of LogSumExp: element %d is %.17g, want %.17g", j, x.Grad[j], p[j])
				}
				if d := math.Abs(y.Data[j] - logp[j]); y.Data[j] != logp[j] && !(d <= 1e-15*max(1, math.Abs(logp[j]))) {
					t.Errorf("LogSoftmax: element %d is %.17g, want %.17g", j, y.Data[j], logp[j])
				}
			}
		})
	}
}

// TestLogSumExpOrdinaryBits checks that rows of ordinary size keep the formulas a − result
// and exp(a − result) bit for bit (saved runs stay valid).
func TestLogSumExpOrdinaryBits(t *testing.T) {
	row := []float64{0.3, -2.5, 7.25, 1e3, -4e5}
	l := logSumExp(row)
	tp := NewTape()
	x := tp.Variable(1, len(row), row)
	tp.Backward(tp.LogSumExp(x))
	y := NewTape().LogSoftmax(NewTensor(1, len(row), row))
	for j, v := range row {
		if y.Data[j] != v-l || x.Grad[j] != math.Exp(v-l) {
			t.Errorf("element %d: log-softmax %v and gradient %v, want %v and %v", j, y.Data[j], x.Grad[j], v-l, math.Exp(v-l))
		}
	}
}

// TestLogSoftmaxBits checks LogSoftmax bit for bit against the scalar formulas on rows of
// every kind: a − l with l = m + log Σ exp(a − m) for ordinary rows, (a − m) − log Σ exp(a − m)
// where |l| exceeds lseDirect, and a − m for rows whose maximum is infinite.
func TestLogSoftmaxBits(t *testing.T) {
	rows := [][]float64{
		{0.3, -2.5, 7.25, 1e3, -4e5},
		{1e308, -1e308, 1e308},
		{1e17, 1e17},
		{-1e17, -1e17, -1e17, -1e17},
		{3e6, 3e6 - 1, 3e6 - 40},
		{-5e6 + 2, -5e6, -5e6 + 1},
		{lseDirect, lseDirect - 0.5},
		{math.Inf(-1), math.Inf(-1)},
		{math.Inf(-1), 2, math.Inf(-1)},
		{math.Inf(1), 0},
	}
	for _, row := range rows {
		t.Run(fmt.Sprint(row), func(t *testing.T) {
			m := math.Inf(-1)
			for _, v := range row {
				m = max(m, v)
			}
			s := 0.0
			if !math.IsInf(m, 0) {
				for _, v := range row {
					s += math.Exp(v - m)
				}
			}
			l := m
			if !math.IsInf(m, 0) {
				l = m + math.Log(s)
			}
			y := NewTape().LogSoftmax(NewTensor(1, len(row), row))
			for j, v := range row {
				want := v - l
				if math.Abs(l) > lseDirect && !math.IsInf(l, 0) {
					want = (v - m) - math.Log(s)
				}
				if got := y.Data[j]; math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
					t.Errorf("element %d is %.17g, want %.17g", j, got, want)
				}
			}
		})
	}
}

// TestBCEWithLogitsLargeLogits checks the mean loss of logits near the largest float64: every
// term softplus(l) − t·l is finite, and so is their mean, but their sum overflowed (the loss
// of two logits 1e308 with target 0 came out +Inf). The gradient (σ(l) − t)/n stays exact.
func TestBCEWithLogitsLargeLogits(t *testing.T) {
	cases := []struct {
		logits, targets []float64
		want            float64
	}{
		{[]float64{1e308, 1e308}, []float64{0, 0}, 1e308},
		{[]float64{-1e308, -1e308}, []float64{1, 1}, 1e308},
		{[]float64{1.5e308, -1.5e308, 1.5e308}, []float64{0, 1, 0.5}, (1.5e308 + 1.5e308 + 0.75e308) / 3},
		{[]float64{math.MaxFloat64, math.MaxFloat64, 0}, []float64{0, 0, 1}, math.MaxFloat64/3*2 + math.Ln2/3},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.logits), func(t *testing.T) {
			tp := NewTape()
			l := tp.Variable(1, len(c.logits), c.logits)
			loss := tp.BCEWithLogits(l, NewTensor(1, len(c.targets), c.targets))
			tp.Backward(loss)
			if got := loss.Item(); !(math.Abs(got-c.want) <= 1e-15*c.want) {
				t.Errorf("loss %v, want %v", got, c.want)
			}
			for i, v := range c.logits {
				want := (kernels.Sigmoid(v) - c.targets[i]) / float64(len(c.logits))
				if l.Grad[i] != want {
					t.Errorf("gradient %d is %v, want %v", i, l.Grad[i], want)
				}
			}
		})
	}
}

// TestBCEWithLogitsOrdinaryBits checks that the loss of ordinary logits is the direct mean
// Σ(softplus(l) − t·l)/n bit for bit (saved runs stay valid).
func TestBCEWithLogitsOrdinaryBits(t *testing.T) {
	cases := [][2][]float64{
		{{0.3, -2.5, 7.25}, {1, 0, 0.5}},
		{{1e3, -1e3, 40, -40}, {0, 1, 1, 0}},
		{{1e300, -1e300, 1e-300, 0}, {0.25, 0.75, 1, 0}},
		{{1e308, -3}, {0, 1}},
	}
	for _, c := range cases {
		s := 0.0
		for i, l := range c[0] {
			s += kernels.Softplus(l) - c[1][i]*l
		}
		want := s / float64(len(c[0]))
		got := NewTape().BCEWithLogits(NewTensor(1, len(c[0]), c[0]), NewTensor(1, len(c[1]), c[1])).Item()
		if got != want {
			t.Errorf("BCEWithLogits(%v, %v) = %.17g, want %.17g", c[0], c[1], got, want)
		}
	}
}

// TestBCEWithLogitsTargetRange checks that a target outside [0, 1] (or NaN) is refused with a
// message naming the target, its place and the range expected: before, a target of 2, −1 or
// NaN gave a loss without a word. The bounds themselves and the values between are accepted.
func TestBCEWithLogitsTargetRange(t *testing.T) {
	logits := []float64{0.5, -1, 2}
	cases := []struct {
		targets []float64
		want    string // substring of the panic, "" for none
	}{
		{[]float64{0, 1, 0.5}, ""},
		{[]float64{1, 0, 0.25}, ""},
		{[]float64{0, 2, 1}, "target 2 at row 0, column 1"},
		{[]float64{-1, 0, 1}, "target -1 at row 0, column 0"},
		{[]float64{0, 1, math.NaN()}, "target NaN at row 0, column 2"},
		{[]float64{math.Inf(1), 0, 0}, "target +Inf at row 0, column 0"},
		{[]float64{0, math.Nextafter(1, 2), 0}, "want a value in [0, 1]"},
		{[]float64{0, 0, -0x1p-1074}, "want a value in [0, 1]"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.targets), func(t *testing.T) {
			defer func() {
				r := recover()
				msg, _ := r.(string)
				switch {
				case c.want == "" && r != nil:
					t.Errorf("panic %v for targets in [0, 1]", r)
				case c.want != "" && !strings.Contains(msg, c.want):
					t.Errorf("panic %v, want one containing %q", r, c.want)
				}
			}()
			tp := NewTape()
			loss := tp.BCEWithLogits(tp.Variable(1, 3, logits), NewTensor(1, 3, c.targets))
			if v := loss.Item(); math.IsNaN(v) {
				t.Errorf("loss %v", v)
			}
		})
	}
}
