package nn

import (
	"fmt"
	"math"
	"testing"
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
