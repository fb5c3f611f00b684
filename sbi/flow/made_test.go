package flow

import (
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/sbi/internal/nntest"
	"github.com/gosbi/gosbi/sbi/nn"
)

// TestMADEAutoregressive checks, through the tape, that output block d of a MADE depends on
// input features 0…d−1 and the context only: the gradient of block d's outputs with respect to
// x_j is exactly zero for j ≥ d and not zero for j < d (with random weights and inputs).
func TestMADEAutoregressive(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 21))
	for _, c := range []struct{ D, C, P int }{{1, 2, 3}, {2, 0, 2}, {3, 2, 23}, {5, 1, 2}} {
		m := NewMADE(rng, c.D, c.C, []int{16, 16}, c.P, nn.Tanh)
		x := nntest.Const(rng, 1, c.D, -1, 1)
		ctx := nntest.Const(rng, 1, c.C, -1, 1)
		for d := 0; d < c.D; d++ {
			tp := nn.NewTape()
			xv := tp.Variable(1, c.D, x.Data)
			var cv *nn.Tensor
			if c.C > 0 {
				cv = tp.Variable(1, c.C, ctx.Data)
			}
			out := m.Forward(tp, xv, cv)
			g := make([]float64, out.Len())
			for p := 0; p < c.P; p++ {
				g[d*c.P+p] = 1
			}
			tp.BackwardWith(out, g)
			for j := 0; j < c.D; j++ {
				if j >= d && xv.Grad[j] != 0 {
					t.Errorf("D=%d: output %d depends on input %d (gradient %v)", c.D, d, j, xv.Grad[j])
				}
				if j < d && xv.Grad[j] == 0 {
					t.Errorf("D=%d: output %d does not depend on input %d", c.D, d, j)
				}
			}
			for j := 0; j < c.C; j++ {
				if cv.Grad[j] == 0 {
					t.Errorf("D=%d: output %d does not depend on context %d", c.D, d, j)
				}
			}
		}
	}
}

// paramGradCheck runs nntest.CheckGrad on a module's parameters and one input.
func paramGradCheck(t *testing.T, name string, ps []*nn.Param, x *nn.Tensor, f func(tp *nn.Tape, x *nn.Tensor) *nn.Tensor) {
	t.Helper()
	var inputs []*nn.Tensor
	for _, p := range ps {
		inputs = append(inputs, p.Tensor)
	}
	inputs = append(inputs, x)
	nntest.CheckGrad(t, name, inputs, func(tp *nn.Tape, in []*nn.Tensor) *nn.Tensor {
		for k, p := range ps {
			p.Tensor = in[k]
		}
		return f(tp, in[len(in)-1])
	})
}

func TestMADEGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 23))
	made := NewMADE(rng, 3, 2, []int{8, 8}, 4, nn.ELU)
	paramGradCheck(t, "MADE", made.Params(), nntest.Var(rng, 4, 5, -1, 1), func(tp *nn.Tape, x *nn.Tensor) *nn.Tensor {
		return made.Forward(tp, tp.Columns(x, 0, 3), tp.Columns(x, 3, 5))
	})
}
