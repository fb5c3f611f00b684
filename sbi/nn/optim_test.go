package nn

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
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
	huge := NewParam("p", 1, 1) // finite, but its square overflows: still a valid step
	huge.Grad[0] = 1e200
	if !GradsFinite([]*Param{huge}) {
		t.Error("GradsFinite(1e200) = false")
	}
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

func TestAllFinite(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want bool
	}{{1, true}, {math.NaN(), false}, {math.Inf(-1), false}} {
		if got := NewTensor(1, 2, []float64{0, c.v}).AllFinite(); got != c.want {
			t.Errorf("AllFinite with %v = %v", c.v, got)
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

// TestStepAllocatesNothing checks that a training step (forward, loss, backward, clipping,
// Adam, reset) allocates nothing once the tape's buffers have been sized by a first step.
func TestStepAllocatesNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(60, 61))
	net := NewMLP(rng, []int{4, 16, 16, 1}, ReLU)
	opt := NewAdam(net.Params(), 1e-3)
	x := mat.NewDense(64, 4, nil)
	y := mat.NewDense(64, 1, nil)
	for i := 0; i < 64; i++ {
		x.Set(i, 0, rng.NormFloat64())
		y.Set(i, 0, float64(i%2))
	}
	idx := make([]int, 32)
	step := func() {
		for k := range idx {
			idx[k] = rng.IntN(64)
		}
		tp := stepTape
		loss := tp.BCEWithLogits(net.Forward(tp, tp.Gather(x, idx)), tp.Gather(y, idx))
		tp.Backward(loss)
		ClipGradNorm(opt.Params(), 5)
		opt.Step()
		opt.ZeroGrad()
		tp.Reset()
	}
	step()
	if n := testing.AllocsPerRun(20, step); n != 0 {
		t.Errorf("a steady-state training step allocates %v times", n)
	}
}

var stepTape = NewTape()

func TestDropoutStatistics(t *testing.T) {
	// the kept fraction of 100000 elements is Binomial(n, 0.7)/n: standard error 0.0014, so
	// 0.7 ± 0.007 (5 SE); kept elements are scaled by 1/0.7 so the mean stays 1.
	tp := NewTape()
	a := tp.New(1000, 100)
	for i := range a.Data {
		a.Data[i] = 1
	}
	y := tp.Dropout(a, 0.3, rand.New(rand.NewPCG(1, 1)))
	kept := 0
	for _, v := range y.Data {
		switch v {
		case 0:
		case 1 / 0.7:
			kept++
		default:
			t.Fatalf("dropout output %v, want 0 or 1/0.7", v)
		}
	}
	if f := float64(kept) / float64(len(y.Data)); math.Abs(f-0.7) > 0.007 {
		t.Errorf("kept fraction %v, want 0.7 ± 0.007", f)
	}
}

// TestGradNormExtremes checks the norm and the clipping of gradients whose squares overflow
// or underflow: Σg² overflowed to +Inf, so that clipping multiplied every gradient by
// maxNorm/Inf = 0, and underflowed to 0, so that GradNorm reported 0.
func TestGradNormExtremes(t *testing.T) {
	cases := []struct {
		name  string
		grads []float64
		norm  float64 // the exact norm
	}{
		{"huge", []float64{3e200, 4e200}, 5e200},
		{"beyond MaxFloat64", []float64{1.5e308, 1.5e308, 0}, math.Inf(1)},
		{"tiny", []float64{3e-200, -4e-200}, 5e-200},
		{"subnormal", []float64{0, 3e-320}, 3e-320},
		{"zero", []float64{0, 0}, 0},
		{"ordinary", []float64{3, -4}, 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, b := NewParam("a", 1, 1), NewParam("b", 1, len(c.grads)-1)
			a.Grad[0] = c.grads[0]
			copy(b.Grad, c.grads[1:])
			ps := []*Param{a, b}
			if got := GradNorm(ps); !near(got, c.norm) {
				t.Errorf("GradNorm = %v, want %v", got, c.norm)
			}
			if got := ClipGradNorm(ps, 1); !near(got, c.norm) {
				t.Errorf("ClipGradNorm returned %v, want %v", got, c.norm)
			}
			want := min(c.norm, 1)
			if got := GradNorm(ps); !near(got, want) && !(c.norm > 1 && math.Abs(got-1) < 1e-6) {
				t.Errorf("norm after clipping to 1 is %v, want %v", got, want)
			}
			if c.grads[0] != 0 {
				if r, want := b.Grad[0]/a.Grad[0], c.grads[1]/c.grads[0]; !near(r, want) {
					t.Errorf("clipping changed the direction: ratio %v, want %v", r, want)
				}
			}
		})
	}
}

// near reports whether x and y agree to 1e-14 relative (or are equal).
func near(x, y float64) bool { return x == y || math.Abs(x-y) <= 1e-14*math.Abs(y) }

// TestOptimizerRefusesBadSettings checks that settings outside torch's ranges are refused
// when a step would use them: they were applied, and a NaN weight decay or a β₁ of 1 (bias
// correction 1/0) turned every parameter into NaN without a word.
func TestOptimizerRefusesBadSettings(t *testing.T) {
	ps := []*Param{NewParam("p", 1, 2)}
	adam := func(set func(a *Adam)) func() {
		return func() {
			a := NewAdam(ps, 0.1)
			set(a)
			a.Step()
		}
	}
	sgd := func(set func(s *SGD)) func() {
		return func() {
			s := NewSGD(ps, 0.1, 0)
			set(s)
			s.Step()
		}
	}
	cases := []struct {
		name, want string
		run        func()
	}{
		{"Adam/Beta1=1", "Beta1", adam(func(a *Adam) { a.Beta1 = 1 })},
		{"Adam/Beta1<0", "Beta1", adam(func(a *Adam) { a.Beta1 = -0.1 })},
		{"Adam/Beta2=NaN", "Beta2", adam(func(a *Adam) { a.Beta2 = math.NaN() })},
		{"Adam/Eps<0", "Eps", adam(func(a *Adam) { a.Eps = -1e-8 })},
		{"Adam/WeightDecay=NaN", "WeightDecay", adam(func(a *Adam) { a.WeightDecay = math.NaN() })},
		{"Adam/WeightDecay<0", "WeightDecay", adam(func(a *Adam) { a.WeightDecay = -0.1 })},
		{"NewAdamW/NaN", "WeightDecay", func() { NewAdamW(ps, 0.1, math.NaN()) }},
		{"SGD/Momentum=NaN", "Momentum", sgd(func(s *SGD) { s.Momentum = math.NaN() })},
		{"SGD/WeightDecay=Inf", "WeightDecay", sgd(func(s *SGD) { s.WeightDecay = math.Inf(1) })},
		{"NewSGD/Momentum<0", "Momentum", func() { NewSGD(ps, 0.1, -0.5) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ps[0].Data[0], ps[0].Data[1], ps[0].Grad[0], ps[0].Grad[1] = 1, 2, 0.5, -0.5
			defer func() {
				r := recover()
				if msg, _ := r.(string); !strings.Contains(msg, c.want) {
					t.Errorf("panic %v, want one naming %s", r, c.want)
				}
			}()
			c.run()
		})
	}
}
