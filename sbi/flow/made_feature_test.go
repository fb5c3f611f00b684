package flow

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/sbi/internal/nntest"
	"github.com/gosbi/gosbi/sbi/nn"
)

// TestMADEFeatureMatchesForward checks that the sub-network of one feature gives that
// feature's block of the full MADE: the dropped terms are products with zero (masked)
// weights, so only the order of summation differs, and the results agree to rounding
// (1e-12 relative). It also checks the evaluator bound to one context.
func TestMADEFeatureMatchesForward(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 31))
	for _, c := range []struct{ D, C, P int }{{1, 2, 3}, {2, 0, 2}, {2, 3, 23}, {3, 2, 5}, {5, 1, 2}} {
		m := NewMADE(rng, c.D, c.C, []int{16, 12}, c.P, nn.ReLU)
		const n = 7
		x := nntest.Const(rng, n, c.D, -2, 2)
		ctx := nntest.Const(rng, 1, c.C, -2, 2)
		ctxRows := make([]float64, 0, n*c.C)
		for i := 0; i < n; i++ {
			ctxRows = append(ctxRows, ctx.Data...)
		}
		tp := nn.NewTape()
		tp.NoGrad = true
		var cv *nn.Tensor
		if c.C > 0 {
			cv = tp.Const(n, c.C, ctxRows)
		}
		full := m.Forward(tp, x, cv)
		for d := 0; d < c.D; d++ {
			f := m.Feature(d)
			got := make([]float64, n*c.P)
			f.Eval(tp, got, x.Data, ctxRows, n)
			bound := make([]float64, n*c.P)
			fb := f
			if c.C > 0 {
				fb = f.WithContext(ctx.Data)
			}
			fb.Eval(tp, bound, x.Data, nil, n)
			for i := 0; i < n; i++ {
				for p := 0; p < c.P; p++ {
					want := full.Data[i*full.Cols+d*c.P+p]
					for _, v := range []float64{got[i*c.P+p], bound[i*c.P+p]} {
						if math.Abs(v-want) > 1e-12*max(1, math.Abs(want)) {
							t.Fatalf("D=%d C=%d feature %d row %d output %d: %v, full MADE %v", c.D, c.C, d, i, p, v, want)
						}
					}
				}
			}
			if fb.Constant() != (d == 0) {
				t.Errorf("D=%d C=%d feature %d: Constant() = %v", c.D, c.C, d, fb.Constant())
			}
		}
	}
}
