package nn

import (
	"fmt"
	"math"
)

// Schedule changes an optimizer's learning rate as training goes on. Step is called once per
// epoch (or per step, as the schedule's user decides) with the latest monitored loss, which
// only ReduceOnPlateau looks at.
type Schedule interface {
	Step(loss float64)
}

// ConstantLR keeps the learning rate unchanged.
type ConstantLR struct{}

// Step implements Schedule.
func (ConstantLR) Step(float64) {}

// CosineLR anneals the learning rate from its initial value to Min over Total steps
// (Loshchilov & Hutter 2017, SGDR without restarts; torch's CosineAnnealingLR):
// lr_t = Min + (lr₀ − Min)(1 + cos(π·t/Total))/2, and Min after Total steps. Optimizers take
// only rates > 0, so with Min = 0 the rate of step Total−1 stays on from then on.
type CosineLR struct {
	opt      Optimizer
	base     float64
	Min      float64
	Total, t int
}

// NewCosineLR returns a cosine schedule over total steps down to minLR. It panics unless
// total ≥ 1 and 0 ≤ minLR ≤ the optimizer's rate.
func NewCosineLR(opt Optimizer, total int, minLR float64) *CosineLR {
	if total < 1 || !(minLR >= 0) || minLR > opt.LR() {
		panic(fmt.Sprintf("nn: NewCosineLR(total=%d, min=%v) with lr %v: want total ≥ 1 and 0 ≤ min ≤ lr", total, minLR, opt.LR()))
	}
	return &CosineLR{opt: opt, base: opt.LR(), Min: minLR, Total: total}
}

// Step implements Schedule.
func (c *CosineLR) Step(float64) {
	c.t = min(c.t+1, c.Total)
	lr := c.Min + (c.base-c.Min)*(1+math.Cos(math.Pi*float64(c.t)/float64(c.Total)))/2
	if lr > 0 {
		c.opt.SetLR(lr)
	}
}

// ReduceOnPlateau multiplies the learning rate by Factor when the loss has not improved by a
// relative Threshold for more than Patience steps, never going below Min (torch's
// ReduceLROnPlateau in "min" mode with relative threshold and no cooldown). An improvement is
// a loss below best − |best|·Threshold; torch's best·(1 − Threshold) is the same for positive
// losses but, for negative ones (negative log-likelihoods), counts a slightly worse loss as
// an improvement.
type ReduceOnPlateau struct {
	opt       Optimizer
	Factor    float64
	Patience  int
	Threshold float64
	Min       float64
	best      float64
	bad       int
}

// NewReduceOnPlateau returns the schedule with torch's defaults for the threshold (1e-4). It
// panics unless 0 < factor < 1, patience ≥ 0 and minLR is finite and ≥ 0.
func NewReduceOnPlateau(opt Optimizer, factor float64, patience int, minLR float64) *ReduceOnPlateau {
	if !(factor > 0 && factor < 1) || patience < 0 || !(minLR >= 0) || math.IsInf(minLR, 1) {
		panic(fmt.Sprintf("nn: NewReduceOnPlateau(factor=%v, patience=%d, min=%v): want 0 < factor < 1, patience ≥ 0, finite min ≥ 0", factor, patience, minLR))
	}
	return &ReduceOnPlateau{opt: opt, Factor: factor, Patience: patience, Threshold: 1e-4, Min: minLR, best: math.Inf(1)}
}

// Step implements Schedule. A NaN loss counts as no improvement.
func (r *ReduceOnPlateau) Step(loss float64) {
	if loss < r.best-math.Abs(r.best)*r.Threshold || (math.IsInf(r.best, 1) && !math.IsNaN(loss)) {
		r.best, r.bad = loss, 0
		return
	}
	r.bad++
	if r.bad > r.Patience {
		if lr := max(r.opt.LR()*r.Factor, r.Min); lr > 0 && lr < r.opt.LR() {
			r.opt.SetLR(lr)
		}
		r.bad = 0
	}
}
