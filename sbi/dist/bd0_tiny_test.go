package dist

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestLargeShapeTinyX: the saddle-point form of the large-shape log-densities computed
// a·log(a/y), whose quotient overflows for a tiny x (a/1e-305 = +Inf for a ≥ 1e4), so that a
// finite log-density came out −Inf. At such x nothing cancels in the direct formula (both of
// its large terms are negative), so it is the reference, to a relative 1e-12. (x is a normal
// number: Go's math.Log on amd64 is wrong for subnormal arguments, log(5e-324) = −709.09
// instead of −744.44, which no reference here could be checked against.)
func TestLargeShapeTinyX(t *testing.T) {
	tiny := 1e-305
	for _, a := range []float64{1e7, 1e10, 1e15} {
		lg, _ := math.Lgamma(a)
		gammaRef := (a-1)*math.Log(tiny) - tiny - lg
		lab, _ := math.Lgamma(a + 2)
		lb, _ := math.Lgamma(2)
		betaRef := lab - lg - lb + (a-1)*math.Log(tiny) + math.Log1p(-tiny)
		for _, c := range []struct {
			name      string
			got, want float64
		}{
			{"Gamma(a, 1)", NewGamma([]float64{a}, []float64{1}).LogProb(mat.NewDense(1, 1, []float64{tiny}))[0], gammaRef},
			{"Beta(a, 2)", NewBeta([]float64{a}, []float64{2}).LogProb(mat.NewDense(1, 1, []float64{tiny}))[0], betaRef},
			{"Beta(2, a) at 1 − x", NewBeta([]float64{2}, []float64{a}).LogProb(mat.NewDense(1, 1, []float64{1 - 0x1p-53}))[0], math.NaN()},
		} {
			if math.IsNaN(c.want) {
				if math.IsInf(c.got, 0) || math.IsNaN(c.got) {
					t.Errorf("%s at a = %g: log-density %v, want a finite value", c.name, a, c.got)
				}
				continue
			}
			if !(math.Abs(c.got-c.want) <= 1e-12*math.Abs(c.want)) {
				t.Errorf("%s at a = %g, x = %g: log-density %v, want %v", c.name, a, tiny, c.got, c.want)
			}
		}
	}
}
