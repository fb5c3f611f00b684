package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// GradientError checks the backward pass of f, a computation on a tape (an op defined with
// Op and Record, a layer), against central finite differences of step h. It differentiates
// Σ w⊙f(inputs) with weights w drawn from a normal distribution (seeded by seed), on a tape,
// with respect to every input that has a gradient (Grad not nil; the others are constants),
// and returns for input k the relative error
//
//	max_i |analytic_i − numeric_i| / max(1, max_i |numeric_i|),
//
// numeric_i = (F(x + h·e_i) − F(x − h·e_i)) / 2h (0 for constant inputs). With h = 1e-5 in
// float64 the truncation and rounding errors of the differences are about 1e-10, so a correct
// backward pass stays far below 1e-6 and a wrong term gives 1e-2 or more. f must be
// deterministic and smooth at the inputs. The inputs' data are restored on return.
func GradientError(inputs []*Tensor, f func(tp *Tape, in []*Tensor) *Tensor, h float64, seed uint64) ([]float64, error) {
	if !(h > 0) {
		return nil, fmt.Errorf("nn: GradientError: step %v, want > 0", h)
	}
	tp := NewTape()
	vars := make([]*Tensor, len(inputs))
	for i, in := range inputs {
		if in.Grad == nil {
			vars[i] = tp.Const(in.Rows, in.Cols, in.Data)
		} else {
			vars[i] = tp.Variable(in.Rows, in.Cols, in.Data)
		}
	}
	out := f(tp, vars)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	w := make([]float64, out.Len())
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	tp.BackwardWith(out, w)
	eval := func() float64 {
		ntp := NewTape()
		ntp.NoGrad = true
		c := make([]*Tensor, len(inputs))
		for i, in := range inputs {
			c[i] = ntp.Const(in.Rows, in.Cols, in.Data)
		}
		s := 0.0
		for i, v := range f(ntp, c).Data {
			s += w[i] * v
		}
		return s
	}
	errs := make([]float64, len(inputs))
	for k, in := range inputs {
		if in.Grad == nil {
			continue
		}
		if vars[k].Grad == nil {
			return nil, fmt.Errorf("nn: GradientError: input %d has no gradient on the tape", k)
		}
		num := make([]float64, in.Len())
		scale := 1.0
		for i, x := range in.Data {
			in.Data[i] = x + h
			fp := eval()
			in.Data[i] = x - h
			fm := eval()
			in.Data[i] = x
			num[i] = (fp - fm) / (2 * h)
			scale = max(scale, math.Abs(num[i]))
		}
		for i := range num {
			e := math.Abs(vars[k].Grad[i]-num[i]) / scale
			if !(e <= errs[k]) { // NaN counts as the worst
				errs[k] = e
			}
		}
	}
	return errs, nil
}
