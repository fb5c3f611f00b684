package task

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gosbi/gosbi/sbi/dist"
	"gonum.org/v1/gonum/mat"
)

// SeriesTask is a task whose data are whole time series, before the hand-made summary that a
// benchmark task keeps of them: sir_raw and lotka_volterra_raw, the trajectories of sir and
// lotka_volterra at every saved time. Each row of the data holds Length time steps of
// Channels values, channels-last (channel c at step t is column t·Channels + c), the layout
// of sbi.CNN1DEmbedding and sbi.GRUEmbedding. Summary reduces raw series to the data of the
// summary task, so that an estimator on the raw series and one on the summary see the same
// simulations. LogLikelihood and SummaryLogLikelihood give the exact likelihood of a raw
// series and of its summary.
type SeriesTask struct {
	*base
	channels, length int
	times            []float64 // the time of each step
	keep             []int     // the steps the summary keeps
	summaryTimes     []float64 // the times of the summary task's data
	summary          func() Task
	model            seriesModel // for LogLikelihood
}

// Channels is the number of values per time step.
func (s *SeriesTask) Channels() int { return s.channels }

// Length is the number of time steps.
func (s *SeriesTask) Length() int { return s.length }

// Times returns the time of each step.
func (s *SeriesTask) Times() []float64 { return append([]float64(nil), s.times...) }

// SummarySteps returns the time steps that the summary keeps.
func (s *SeriesTask) SummarySteps() []int { return append([]int(nil), s.keep...) }

// SummaryTask returns the task whose data Summary computes (sir, lotka_volterra).
func (s *SeriesTask) SummaryTask() Task { return s.summary() }

// Summary returns the hand-made summary of raw series x (one per row): the values at the
// steps the summary task keeps, in its layout (channel after channel). The summary of a
// simulation of this task is distributed as a simulation of SummaryTask for the same
// parameters. It panics when x does not have DataDim columns.
func (s *SeriesTask) Summary(x *mat.Dense) *mat.Dense {
	return keepSteps(s.name, x, s.length, s.channels, s.keep)
}

// keepSteps returns the values of series x (one per row, length steps of channels values,
// channels-last) at the steps keep, channel after channel. It panics, naming task, when x does
// not have length·channels columns.
func keepSteps(task string, x *mat.Dense, length, channels int, keep []int) *mat.Dense {
	n, c := x.Dims()
	if c != length*channels {
		panic(fmt.Sprintf("task %s: Summary: x has %d columns, expected %d (%d steps × %d channels)", task, c, length*channels, length, channels))
	}
	k := len(keep)
	out := mat.NewDense(n, k*channels, nil)
	for i := 0; i < n; i++ {
		raw, sum := x.RawRowView(i), out.RawRowView(i)
		for ch := 0; ch < channels; ch++ {
			for j, t := range keep {
				sum[ch*k+j] = raw[t*channels+ch]
			}
		}
	}
	return out
}

// evenTimes returns n times from 0 in steps of dt.
func evenTimes(n int, dt float64) []float64 {
	t := make([]float64, n)
	for i := range t {
		t[i] = float64(i) * dt
	}
	return t
}

// everyKth returns 0, k, 2k, … (n values).
func everyKth(n, k int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i * k
	}
	return idx
}

// sirRawDays are the days at which sbibm saves the SIR ODE, 0 to 160.
var sirRawDays = evenTimes(161, 1)

// sirSummarySteps are the steps of sirRawDays that sir keeps: days 0, 17, …, 153.
var sirSummarySteps = everyKth(10, 17)

// SIRRaw is the sir task before its summary ("sir_raw"): the prior and model of SIR, with
// x_t ~ Binomial(1000, I(t)/N) on every day t = 0, 1, …, 160 at which sbibm saves the ODE
// (161 values, one channel). sir keeps days 0, 17, …, 153 (Summary). A failed solve gives a
// NaN row; there are no stored observations.
func SIRRaw() *SeriesTask {
	return &SeriesTask{
		base: &base{
			name:        "sir_raw",
			prior:       sirPrior(),
			paramLabels: sirLabels, dataDim: len(sirRawDays),
			row: func(rng *rand.Rand, theta, x []float64) {
				sol, err := solveSIRAt(theta[0], theta[1], sirRawDays)
				if err != nil {
					nanFill(x)
					return
				}
				for j, u := range sol {
					p := math.Min(1, math.Max(0, u[1]/sirN))
					x[j] = float64(dist.Binomial(rng, sirCount, p))
				}
			},
		},
		channels: 1, length: len(sirRawDays), times: sirRawDays, keep: sirSummarySteps,
		summaryTimes: sirTimes, summary: SIR, model: sirModel(sirCount),
	}
}

// lvRawTimes are the times at which sbibm saves the Lotka–Volterra ODE: 0, 0.1, …, 20.
var lvRawTimes = evenTimes(201, 0.1)

// LotkaVolterraRaw is the lotka_volterra task before its summary ("lotka_volterra_raw"): the
// prior and model of LotkaVolterra, with both populations observed as
// LogNormal(log clamp(u, 10⁻¹⁰, 10⁴), 0.1) at every time t = 0, 0.1, …, 20 at which sbibm saves
// the ODE (201 steps × 2 channels, prey then predator at each step: 402 values).
// lotka_volterra keeps the steps 0, 21, …, 189 (Summary). A failed solve gives a NaN row;
// there are no stored observations.
func LotkaVolterraRaw() *SeriesTask {
	return &SeriesTask{
		base: &base{
			name:        "lotka_volterra_raw",
			prior:       dist.NewLogNormal([]float64{-0.125, -3, -0.125, -3}, fillv(4, 0.5)),
			paramLabels: []string{"α", "β", "γ", "δ"}, dataDim: 2 * len(lvRawTimes),
			row: func(rng *rand.Rand, theta, x []float64) {
				sol, err := solveLVAt(theta, lvRawTimes)
				if err != nil {
					nanFill(x)
					return
				}
				for j, u := range sol {
					for s := 0; s < 2; s++ {
						v := math.Min(1e4, math.Max(1e-10, u[s]))
						x[2*j+s] = math.Exp(math.Log(v) + 0.1*rng.NormFloat64())
					}
				}
			},
		},
		channels: 2, length: len(lvRawTimes), times: lvRawTimes, keep: everyKth(10, 21),
		summaryTimes: lvTimes, summary: LotkaVolterra, model: lvModel(0.1),
	}
}

// Simulate: see Task.
func (s *SeriesTask) Simulate(rng *rand.Rand, theta *mat.Dense) *mat.Dense {
	return simulate(s, rng, theta)
}
