package task

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// sirJumpN is the population of sir_jump.
const sirJumpN = 1000

// SIRJumpTask is the stochastic SIR epidemic, a Markov jump process: the counterpart of sbibm's
// sir in which the epidemic's timing is itself random. See SIRJump.
type SIRJumpTask struct {
	*base
}

// SIRJump is the Markov-jump counterpart of sbibm's sir ("sir_jump"): a closed population of
// N = 1000 starts with S = N − 1 susceptible, I = 1 infected and R = 0 recovered, and evolves
// by two events, infection (S, I) → (S − 1, I + 1) at rate β·S·I/N and recovery I → I − 1 at rate
// γ·I, simulated exactly (Gillespie's direct method: exponential waiting times and the event
// chosen in proportion to its rate, both drawn from the rng given). The prior and the labels
// are sir's: β ~ LogNormal(log 0.4, 0.5), γ ~ LogNormal(log 0.125, 0.2).
//
// The data are the number infected I(t), the state of the process at day t (the last state at
// or before t), on each of the 161 days t = 0, 1, …, 160 (Days): one channel, float64 counts in
// [0, N] with I(0) = 1, the layout of sir_raw. sbibm's sir has a population of 10⁶, follows the
// ODE (the large-population limit) and observes it through a binomial sample of 1000; here the
// population is small enough that chance shapes the epidemic: whether it takes off at all (a
// path that dies out early ends in zeros) and when its peak falls, which varies from path to
// path for the same θ. A convolution's translation equivariance can pay on such data, where on
// sir_raw, whose peak falls at the same day for a given θ, it cannot. Summary keeps the days
// sir keeps. A path has at most 2N − 1 events (each infection uses up a susceptible, each
// recovery an infected). There are no stored observations.
func SIRJump() *SIRJumpTask { return newSIRJump("sir_jump", 0) }

// sirJumpOnsetMax is the latest day on which the first infection of sir_jump_onset arrives.
const sirJumpOnsetMax = 60

// SIRJumpOnset is sir_jump with an unknown start ("sir_jump_onset"): the first infected person
// arrives at a time drawn uniformly from [0, 60) days, before which no one is infected, and the
// epidemic then runs as in SIRJump (N = 1000, one initial infected, the same rates and prior).
// The arrival time is drawn first from the rng given, then the path. Outbreaks are seeded by
// an introduction whose date is seldom known; here it is a nuisance, not a parameter (θ is
// (β, γ) as in sir), so an epidemic can fall anywhere in a 60-day window for the same θ, where
// sir_jump's peak day varies by about 5 days. The data are I(t) on days 0, 1, …, 160, as in
// SIRJump, with I(t) = 0 before the arrival; an epidemic seeded late with a small growth rate
// may not end within the 161 days.
func SIRJumpOnset() *SIRJumpTask { return newSIRJump("sir_jump_onset", sirJumpOnsetMax) }

// newSIRJump returns the SIR jump task name whose first infection arrives at a time drawn
// uniformly from [0, onsetMax) days, or at day 0, drawing nothing, when onsetMax is 0.
func newSIRJump(name string, onsetMax float64) *SIRJumpTask {
	return &SIRJumpTask{base: &base{
		name:        name,
		prior:       sirPrior(),
		paramLabels: sirLabels, dataDim: len(sirRawDays),
		row: func(rng *rand.Rand, theta, x []float64) {
			start := 0.0
			if onsetMax > 0 {
				start = onsetMax * rng.Float64()
			}
			sirJumpPath(rng, theta[0], theta[1], sirJumpN, 1, start, x)
		},
	}}
}

// Days returns the day of each value of a simulation, 0, 1, …, 160.
func (t *SIRJumpTask) Days() []float64 { return append([]float64(nil), sirRawDays...) }

// Summary returns the values of series x (one per row) on the 10 days that sbibm's sir keeps,
// 0, 17, …, 153 (SeriesTask.SummarySteps of sir_raw). They are counts in a population of 1000,
// not sir's data (a binomial sample of 1000 from a population of 10⁶), and not distributed as
// them. It panics when x does not have 161 columns.
func (t *SIRJumpTask) Summary(x *mat.Dense) *mat.Dense {
	return keepSteps(t.name, x, len(sirRawDays), 1, sirSummarySteps)
}

// sirJumpPath simulates the SIR jump process with rates β·S·I/n and γ·I from S = n − i0,
// I = i0 at time start ≥ 0, and writes I at days 0, 1, …, len(x)−1 into x (0 on the days
// before start, then the state after every event at or before the day). It stops at the last
// day or when no one is infected.
func sirJumpPath(rng *rand.Rand, beta, gamma float64, n, i0 int, start float64, x []float64) {
	s, i := float64(n-i0), float64(i0)
	now := start
	day := 0
	for ; day < len(x) && float64(day) < start; day++ {
		x[day] = 0
	}
	for i > 0 && day < len(x) {
		infect := beta * s * i / float64(n)
		total := infect + gamma*i
		if !(total > 0) {
			break
		}
		now += rng.ExpFloat64() / total
		for ; day < len(x) && float64(day) < now; day++ {
			x[day] = i
		}
		if rng.Float64()*total < infect {
			s--
			i++
		} else {
			i--
		}
	}
	for ; day < len(x); day++ {
		x[day] = i
	}
}
