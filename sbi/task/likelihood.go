package task

import (
	"fmt"
	"math"

	"github.com/gosbi/gosbi/sbi/internal/mathx"
)

// seriesModel is the observation model of a SeriesTask given the ODE's solution: solve returns
// the state at each time, and logObs is the log density (or mass) of the value x of channel ch
// at a time whose state is u, with an error for an x the model cannot produce.
type seriesModel struct {
	solve  func(theta, times []float64) ([][]float64, error)
	logObs func(u []float64, ch int, x float64) (float64, error)
}

// LogLikelihood is log p(x | θ) of one raw series x (DataDim values in the layout of Simulate:
// channel c at step t is x[t·Channels + c]). Given the ODE's solution u(t) for θ, the values
// are independent:
//
//	sir_raw:            log p(x | θ) = Σ_t log Binom(x_t; 1000, clamp(I(t)/N, 0, 1)), N = 10⁶
//	lotka_volterra_raw: log p(x | θ) = Σ_t Σ_c log LogNormal(x_{t,c}; log clamp(u_c(t), 10⁻¹⁰, 10⁴), 0.1)
//
// (the density of the series as simulated, not of its logarithm: the two differ by Σ log x,
// which does not depend on θ, so that posteriors are the same). It returns an error for θ or
// x of the wrong length or not finite, for a value the model cannot produce (a sir_raw count
// that is not an integer in [0, 1000], a lotka_volterra_raw value ≤ 0), and, with −Inf, for
// a θ whose ODE solve fails (wrapping ErrODE): the simulator gives a NaN row there, so every
// finite series has likelihood 0.
func (s *SeriesTask) LogLikelihood(theta, x []float64) (float64, error) {
	return s.logLik("LogLikelihood", theta, x, s.times, len(s.times), func(t, c int) int { return t*s.channels + c })
}

// SummaryLogLikelihood is log p(x | θ) of one datum x of SummaryTask (sir, lotka_volterra: the
// values at SummarySteps in that task's layout, channel after channel), the model of
// LogLikelihood at those times only. Errors are those of LogLikelihood.
func (s *SeriesTask) SummaryLogLikelihood(theta, x []float64) (float64, error) {
	k := len(s.summaryTimes)
	return s.logLik("SummaryLogLikelihood", theta, x, s.summaryTimes, k, func(t, c int) int { return c*k + t })
}

// logLik is the likelihood of x observed at times, with the value of channel c at time t
// in x[at(t, c)].
func (s *SeriesTask) logLik(what string, theta, x, times []float64, steps int, at func(t, c int) int) (float64, error) {
	if err := s.checkLikInput(what, theta, x, steps*s.channels); err != nil {
		return 0, err
	}
	sol, err := s.model.solve(theta, times)
	if err != nil {
		return math.Inf(-1), fmt.Errorf("task %s: %s at θ = %v: the ODE solve failed, so the simulator gives a NaN row and every finite x has likelihood 0: %w", s.name, what, theta, err)
	}
	sum := 0.0
	for t, u := range sol {
		for c := 0; c < s.channels; c++ {
			i := at(t, c)
			l, err := s.model.logObs(u, c, x[i])
			if err != nil {
				return 0, fmt.Errorf("task %s: %s: x[%d] = %v: %w", s.name, what, i, x[i], err)
			}
			sum += l
		}
	}
	return sum, nil
}

// checkLikInput checks the lengths and finiteness of θ and x.
func (s *SeriesTask) checkLikInput(what string, theta, x []float64, dim int) error {
	if len(theta) != s.prior.Dim() || len(x) != dim {
		return fmt.Errorf("task %s: %s: θ has %d values and x %d, expected %d and %d", s.name, what, len(theta), len(x), s.prior.Dim(), dim)
	}
	for i, v := range theta {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("task %s: %s: θ[%d] = %v, expected a finite value", s.name, what, i, v)
		}
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("task %s: %s: x[%d] = %v, expected a finite value (a failed simulation has no likelihood)", s.name, what, i, v)
		}
	}
	return nil
}

// sirModel is the observation model of sir and sir_raw: a count of draws Binomial(n, I/N).
func sirModel(n int) seriesModel {
	return seriesModel{
		solve: func(theta, times []float64) ([][]float64, error) { return solveSIRAt(theta[0], theta[1], times) },
		logObs: func(u []float64, _ int, x float64) (float64, error) {
			return logBinomial(x, n, math.Min(1, math.Max(0, u[1]/sirN)))
		},
	}
}

// logBinomial is log Binom(k; n, p), with an error unless k is an integer in [0, n].
func logBinomial(k float64, n int, p float64) (float64, error) {
	if k != math.Trunc(k) || k < 0 || k > float64(n) {
		return 0, fmt.Errorf("expected a count, an integer from 0 to %d", n)
	}
	lc := lgamma(float64(n)+1) - lgamma(k+1) - lgamma(float64(n)-k+1)
	return lc + xlogy(k, p) + xlogy(float64(n)-k, 1-p), nil
}

// xlogy is x·log y, 0 where x = 0 (so that a count of 0 at p = 0 has probability 1), with the
// logarithm of mathx, right for a subnormal y (a proportion I/N that underflows).
func xlogy(x, y float64) float64 {
	if x == 0 {
		return 0
	}
	return x * mathx.Log(y)
}

func lgamma(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}

// lvModel is the observation model of lotka_volterra and lotka_volterra_raw: each population
// LogNormal(log clamp(u, 10⁻¹⁰, 10⁴), sd).
func lvModel(sd float64) seriesModel {
	return seriesModel{
		solve: solveLVAt,
		logObs: func(u []float64, ch int, x float64) (float64, error) {
			if !(x > 0) {
				return 0, fmt.Errorf("expected a positive value (the data are log-normal: pass the series as simulated, not its logarithm)")
			}
			lx := mathx.Log(x)
			z := (lx - math.Log(math.Min(1e4, math.Max(1e-10, u[ch])))) / sd
			return -lx - math.Log(sd) - 0.5*math.Log(2*math.Pi) - z*z/2, nil
		},
	}
}
