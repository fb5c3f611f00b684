package nn

import (
	"fmt"
	"math"

	"github.com/gosbi/gosbi/sbi/internal/kernels"
)

// Optimizer updates parameters from their accumulated gradients.
type Optimizer interface {
	// Step applies one update and reports true, or, when any gradient is NaN or infinite,
	// changes nothing and reports false (the step is skipped).
	Step() bool
	// ZeroGrad sets all parameter gradients to zero.
	ZeroGrad()
	// LR returns the current learning rate; SetLR changes it (schedules use this).
	LR() float64
	SetLR(lr float64)
	// Params returns the parameters being optimized.
	Params() []*Param
}

// Adam is the Adam optimizer (Kingma & Ba 2015, Algorithm 1) with bias correction, as in
// torch.optim.Adam. WeightDecay adds WeightDecay·θ to the gradient (L2, torch's Adam) unless
// Decoupled is set, in which case θ ← θ(1 − lr·WeightDecay) before the update (AdamW,
// Loshchilov & Hutter 2019). Weight decay applies to every parameter, biases and the gains
// of LayerNorm included, as torch's does with a single parameter group. The settings must be
// in torch's ranges, 0 ≤ Beta1, Beta2 < 1, Eps ≥ 0 and WeightDecay ≥ 0, finite: Step panics
// otherwise.
type Adam struct {
	Beta1, Beta2, Eps float64
	WeightDecay       float64
	Decoupled         bool

	lr     float64
	params []*Param
	m, v   [][]float64
	t      int
}

// NewAdam returns Adam with torch's defaults β = (0.9, 0.999), ε = 1e-8, no weight decay.
func NewAdam(params []*Param, lr float64) *Adam {
	checkLR(lr)
	a := &Adam{Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, lr: lr, params: params}
	for _, p := range params {
		a.m = append(a.m, make([]float64, p.Len()))
		a.v = append(a.v, make([]float64, p.Len()))
	}
	return a
}

// NewAdamW returns Adam with decoupled weight decay (torch.optim.AdamW; torch's default
// weight decay is 0.01).
func NewAdamW(params []*Param, lr, weightDecay float64) *Adam {
	a := NewAdam(params, lr)
	a.WeightDecay, a.Decoupled = weightDecay, true
	a.check()
	return a
}

// check panics unless the settings are in torch's ranges.
func (a *Adam) check() {
	checkSetting("Adam", "Beta1", a.Beta1, 1)
	checkSetting("Adam", "Beta2", a.Beta2, 1)
	checkSetting("Adam", "Eps", a.Eps, math.Inf(1))
	checkSetting("Adam", "WeightDecay", a.WeightDecay, math.Inf(1))
}

// checkSetting panics unless 0 ≤ v < below and v is finite.
func checkSetting(opt, name string, v, below float64) {
	if !(v >= 0 && v < below) { // also refuses NaN and +Inf
		want := "finite and ≥ 0"
		if below < math.Inf(1) {
			want = fmt.Sprintf("0 ≤ %s < %v", name, below)
		}
		panic(fmt.Sprintf("nn: %s: %s = %v, want %s", opt, name, v, want))
	}
}

func checkLR(lr float64) {
	if !(lr > 0) || math.IsInf(lr, 0) {
		panic(fmt.Sprintf("nn: learning rate %v, want a finite value > 0", lr))
	}
}

// Step implements Optimizer.
func (a *Adam) Step() bool {
	a.check()
	if !GradsFinite(a.params) {
		return false
	}
	a.t++
	bc1 := 1 - math.Pow(a.Beta1, float64(a.t))
	bc2 := 1 - math.Pow(a.Beta2, float64(a.t))
	lr, wd := a.lr, a.WeightDecay
	c := [7]float64{a.Beta1, 1 - a.Beta1, a.Beta2, 1 - a.Beta2, lr / bc1, a.Eps, math.Sqrt(bc2)}
	for k, p := range a.params {
		m, v, g, x := a.m[k], a.v[k], p.Grad, p.Data
		m, v, g = m[:len(x)], v[:len(x)], g[:len(x)]
		if wd != 0 && a.Decoupled {
			d := 1 - lr*wd
			for i := range x {
				x[i] *= d
			}
		}
		if wd != 0 && !a.Decoupled { // L2: the gradient is g + λθ
			for i, gi := range g {
				gi += wd * x[i]
				mi := c[0]*m[i] + c[1]*gi
				vi := c[2]*v[i] + c[3]*gi*gi
				m[i], v[i] = mi, vi
				x[i] -= c[4] * mi / (math.Sqrt(vi)/c[6] + c[5])
			}
			continue
		}
		kernels.Adam(x, g, m, v, &c)
	}
	return true
}

// ZeroGrad implements Optimizer.
func (a *Adam) ZeroGrad() { ZeroGrads(a.params) }

// LR implements Optimizer.
func (a *Adam) LR() float64 { return a.lr }

// SetLR implements Optimizer.
func (a *Adam) SetLR(lr float64) { checkLR(lr); a.lr = lr }

// Params implements Optimizer.
func (a *Adam) Params() []*Param { return a.params }

// Steps returns the number of updates applied so far.
func (a *Adam) Steps() int { return a.t }

// SGD is stochastic gradient descent with optional momentum and L2 weight decay, as in
// torch.optim.SGD (no dampening, no Nesterov): b ← μ·b + g; θ ← θ − lr·b. Momentum and
// WeightDecay must be finite and ≥ 0 (Step panics otherwise); weight decay applies to every
// parameter.
type SGD struct {
	Momentum, WeightDecay float64

	lr     float64
	params []*Param
	buf    [][]float64
	t      int
}

// NewSGD returns SGD with the given learning rate and momentum (0 for plain SGD).
func NewSGD(params []*Param, lr, momentum float64) *SGD {
	checkLR(lr)
	checkSetting("SGD", "Momentum", momentum, math.Inf(1))
	s := &SGD{Momentum: momentum, lr: lr, params: params}
	for _, p := range params {
		s.buf = append(s.buf, make([]float64, p.Len()))
	}
	return s
}

// Step implements Optimizer.
func (s *SGD) Step() bool {
	checkSetting("SGD", "Momentum", s.Momentum, math.Inf(1))
	checkSetting("SGD", "WeightDecay", s.WeightDecay, math.Inf(1))
	if !GradsFinite(s.params) {
		return false
	}
	for k, p := range s.params {
		b, x := s.buf[k], p.Data
		for i, g := range p.Grad {
			g += s.WeightDecay * x[i]
			if s.Momentum != 0 {
				if s.t == 0 {
					b[i] = g
				} else {
					b[i] = s.Momentum*b[i] + g
				}
				g = b[i]
			}
			x[i] -= s.lr * g
		}
	}
	s.t++
	return true
}

// ZeroGrad implements Optimizer.
func (s *SGD) ZeroGrad() { ZeroGrads(s.params) }

// LR implements Optimizer.
func (s *SGD) LR() float64 { return s.lr }

// SetLR implements Optimizer.
func (s *SGD) SetLR(lr float64) { checkLR(lr); s.lr = lr }

// Params implements Optimizer.
func (s *SGD) Params() []*Param { return s.params }
