package nn

import (
	"math"
	"testing"
)

// The expected values were computed by hand from the update rules (Adam: Kingma & Ba 2015,
// Algorithm 1; AdamW: decay θ by 1−lr·λ first; SGD with momentum as in torch) for a single
// parameter θ₀ = 1, lr = 0.1 and the gradients 0.5 then −1.
func TestOptimizerSteps(t *testing.T) {
	cases := []struct {
		name string
		opt  func(ps []*Param) Optimizer
		want [2]float64
	}{
		{"Adam", func(ps []*Param) Optimizer { return NewAdam(ps, 0.1) }, [2]float64{0.900000002, 0.9366103542405654}},
		{"AdamW", func(ps []*Param) Optimizer { return NewAdamW(ps, 0.1, 0.1) }, [2]float64{0.890000002, 0.9177103542205653}},
		{"AdamL2", func(ps []*Param) Optimizer { a := NewAdam(ps, 0.1); a.WeightDecay = 0.1; return a }, [2]float64{0.9000000016666666, 0.9252635194456061}},
		{"SGD", func(ps []*Param) Optimizer { return NewSGD(ps, 0.1, 0) }, [2]float64{0.95, 1.05}},
		{"SGDMomentum", func(ps []*Param) Optimizer { return NewSGD(ps, 0.1, 0.9) }, [2]float64{0.95, 1.005}},
	}
	for _, c := range cases {
		p := NewParam("p", 1, 1)
		p.Data[0] = 1
		opt := c.opt([]*Param{p})
		for k, g := range []float64{0.5, -1} {
			opt.ZeroGrad()
			p.Grad[0] = g
			if !opt.Step() {
				t.Fatalf("%s: step %d skipped with finite gradient", c.name, k)
			}
			if d := math.Abs(p.Data[0] - c.want[k]); d > 1e-15 {
				t.Errorf("%s: after step %d θ = %.17g, want %.17g", c.name, k+1, p.Data[0], c.want[k])
			}
		}
	}
}

func TestStepSkipsNonFinite(t *testing.T) {
	for _, bad := range []float64{math.NaN(), math.Inf(1)} {
		p := NewParam("p", 1, 2)
		p.Data[0], p.Data[1] = 1, 2
		for _, opt := range []Optimizer{NewAdam([]*Param{p}, 0.1), NewSGD([]*Param{p}, 0.1, 0.9)} {
			p.Grad[0], p.Grad[1] = 0.5, bad
			if opt.Step() {
				t.Errorf("%T: step with gradient %v was applied", opt, bad)
			}
			if p.Data[0] != 1 || p.Data[1] != 2 {
				t.Errorf("%T: parameters changed to %v by a skipped step", opt, p.Data)
			}
		}
	}
}

func TestClipGradNorm(t *testing.T) {
	a, b := NewParam("a", 1, 2), NewParam("b", 1, 1)
	copy(a.Grad, []float64{3, 0})
	b.Grad[0] = 4 // joint norm 5
	if n := ClipGradNorm([]*Param{a, b}, 10); n != 5 || a.Grad[0] != 3 {
		t.Fatalf("norm 5 under max 10: got norm %v, grads %v %v; want unchanged", n, a.Grad, b.Grad)
	}
	if n := ClipGradNorm([]*Param{a, b}, 1); n != 5 {
		t.Fatalf("returned norm %v, want 5", n)
	}
	if got := GradNorm([]*Param{a, b}); math.Abs(got-1) > 1e-6 {
		t.Errorf("norm after clipping to 1 is %v", got)
	}
	if math.Abs(a.Grad[0]/b.Grad[0]-0.75) > 1e-15 {
		t.Errorf("clipping changed the gradient direction: %v %v", a.Grad, b.Grad)
	}
}
