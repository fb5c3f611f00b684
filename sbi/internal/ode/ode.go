// Package ode integrates ordinary differential equations with the explicit Runge–Kutta pair
// of Dormand and Prince (order 5 with an embedded order-4 error estimate) and adaptive steps:
// Solve integrates one system (the ODE simulators of package task call it through
// task.SolveODE), and SolveRows integrates many independent systems of the same size at once,
// each with its own step size, evaluating the right-hand side of all of them in one call per
// stage (the flow-matching fields of package flow, whose right-hand side is a network
// evaluated on a batch).
//
// Both use the same tableau and step controller: the error of a step, relative to
// AbsTol + RelTol·max(|y|, |y_new|) per component, is averaged as a root mean square over the
// components of a system, a step is accepted when that is at most 1, and the next step is
// h·min(5, max(0.2, 0.9·err^(−1/5))) (Hairer, Nørsett and Wanner, Solving ODEs I, §II.4).
package ode

import (
	"errors"
	"fmt"
	"math"
)

// Config holds the tolerances and limits of the solvers; zero fields take the defaults, and a
// negative or NaN field is an error.
type Config struct {
	RelTol, AbsTol float64 // per-component error bound AbsTol + RelTol·|y| (defaults 1e-6, 1e-6)
	MaxSteps       int     // accepted plus rejected steps of one system before giving up (default 100,000)
}

// MinTolerance is the smallest RelTol and AbsTol the solvers accept: about 45 times
// float64's rounding of values near 1. A finer tolerance is below the rounding of the state,
// which no step can meet: the solver would accept steps on error estimates made of rounding
// and return an answer less accurate than asked for.
const MinTolerance = 1e-14

// WithDefaults returns the configuration the solvers run with: the zero fields filled with
// the defaults, and an error for a negative, NaN or infinite field (zero, not a negative
// number, asks for the default) or for a RelTol or AbsTol below MinTolerance.
func (c Config) WithDefaults() (Config, error) {
	if !(c.RelTol >= 0) || !(c.AbsTol >= 0) || c.MaxSteps < 0 || math.IsInf(c.RelTol, 0) || math.IsInf(c.AbsTol, 0) {
		return c, fmt.Errorf("RelTol = %v, AbsTol = %v, MaxSteps = %d: tolerances and MaxSteps must be positive and finite, or 0 for the defaults", c.RelTol, c.AbsTol, c.MaxSteps)
	}
	if c.RelTol == 0 {
		c.RelTol = 1e-6
	}
	if c.AbsTol == 0 {
		c.AbsTol = 1e-6
	}
	if c.MaxSteps == 0 {
		c.MaxSteps = 100000
	}
	for _, tol := range []struct {
		name string
		v    float64
	}{{"RelTol", c.RelTol}, {"AbsTol", c.AbsTol}} {
		if tol.v < MinTolerance {
			return c, fmt.Errorf("%s = %v is tighter than float64 can resolve: use at least %v (0 for the default)", tol.name, tol.v, MinTolerance)
		}
	}
	return c, nil
}

// ErrODE is wrapped by the errors of the solvers when they give up.
var ErrODE = errors.New("ODE solver failed")

// Dormand–Prince 5(4) tableau (Dormand and Prince, "A family of embedded Runge-Kutta formulae",
// J. Comp. Appl. Math. 6, 1980; Hairer, Nørsett and Wanner, Solving ODEs I, Table 5.2).
var (
	dpC = [7]float64{0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1, 1}
	dpA = [7][6]float64{
		{},
		{1.0 / 5},
		{3.0 / 40, 9.0 / 40},
		{44.0 / 45, -56.0 / 15, 32.0 / 9},
		{19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
		{9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656},
		{35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84},
	}
	// dpE is the difference between the 5th- and the embedded 4th-order weights. The
	// 5th-order solution is the 7th stage point (its weights are the last row of dpA: first
	// same as last).
	dpE = [7]float64{71.0 / 57600, 0, -71.0 / 16695, 71.0 / 1920, -17253.0 / 339200, 22.0 / 525, -1.0 / 40}
)

// stepFactor is the controller's factor for the next step after a step with error norm err.
func stepFactor(err float64) float64 {
	return math.Min(5, math.Max(0.2, 0.9*math.Pow(math.Max(err, 1e-10), -0.2)))
}

// Func is the right-hand side dy/dt = f(t, y) of one system, written into dy.
type Func func(t float64, y, dy []float64)

// Solve integrates dy/dt = f(t, y) from y(t0) = y0 and returns y at each of the increasing
// times (all ≥ t0), one slice per time. Steps are shortened to land exactly on the output
// times.
func Solve(f Func, t0 float64, y0 []float64, times []float64, cfg Config) ([][]float64, error) {
	cfg, err := cfg.WithDefaults()
	if err != nil {
		return nil, err
	}
	n := len(y0)
	var k [7][]float64
	for i := range k {
		k[i] = make([]float64, n)
	}
	y := append([]float64(nil), y0...)
	ynew := make([]float64, n)
	tmp := make([]float64, n)
	out := make([][]float64, len(times))
	t := t0
	f(t, y, k[0])
	h := initialStep(f, t, y, k[0], cfg, tmp, ynew)
	steps := 0
	for idx, target := range times {
		if target < t {
			return nil, fmt.Errorf("%w: output time %v is before %v (times must be increasing and ≥ t0)", ErrODE, target, t)
		}
		for t < target {
			if steps++; steps > cfg.MaxSteps {
				return nil, fmt.Errorf("%w: more than %d steps before t = %v", ErrODE, cfg.MaxSteps, target)
			}
			last, hTry := false, h
			if t+h >= target {
				h, last = target-t, true
			}
			// Stages 2…7 (stage 1 is k[0] = f(t, y), carried over from the previous step).
			for s := 1; s < 7; s++ {
				for i := 0; i < n; i++ {
					acc := y[i]
					for j := 0; j < s; j++ {
						acc += h * dpA[s][j] * k[j][i]
					}
					tmp[i] = acc
				}
				f(t+dpC[s]*h, tmp, k[s])
			}
			copy(ynew, tmp) // the 7th stage point is the 5th-order solution
			errNorm := errorNorm(h, y, ynew, k[:], 0, n, cfg)
			if math.IsNaN(errNorm) || math.IsInf(errNorm, 0) {
				return nil, fmt.Errorf("%w: non-finite state near t = %v", ErrODE, t)
			}
			factor := stepFactor(errNorm)
			if errNorm <= 1 {
				if last {
					t = target
				} else {
					t += h
				}
				copy(y, ynew)
				k[0], k[6] = k[6], k[0] // first same as last: f(t_new, y_new) is stage 7
				if last {
					h = hTry // the shortened step says nothing about the next one
				} else {
					h *= factor
				}
			} else {
				h *= math.Min(1, factor)
			}
			if h < 1e-12*math.Max(1, math.Abs(t)) {
				return nil, fmt.Errorf("%w: step size underflow at t = %v", ErrODE, t)
			}
		}
		out[idx] = append([]float64(nil), y...)
	}
	return out, nil
}

// errorNorm is the root mean square over the components lo…hi−1 of the step's error
// h·Σ_j E_j k_j relative to AbsTol + RelTol·max(|y|, |y_new|).
func errorNorm(h float64, y, ynew []float64, k [][]float64, lo, hi int, cfg Config) float64 {
	var sum float64
	for i := lo; i < hi; i++ {
		e := 0.0
		for j := 0; j < 7; j++ {
			e += dpE[j] * k[j][i]
		}
		sc := cfg.AbsTol + cfg.RelTol*math.Max(math.Abs(y[i]), math.Abs(ynew[i]))
		r := h * e / sc
		sum += r * r
	}
	return math.Sqrt(sum / float64(hi-lo))
}

// initialStep is the starting-step heuristic of Hairer et al. (§II.4): h₀ = 0.01·‖y‖/‖f‖,
// refined by one explicit Euler step to estimate the second derivative.
func initialStep(f Func, t float64, y, f0 []float64, cfg Config, tmp, f1 []float64) float64 {
	d0, d1 := scaledNorms(y, f0, cfg)
	h0 := firstGuess(d0, d1)
	for i := range y {
		tmp[i] = y[i] + h0*f0[i]
	}
	f(t+h0, tmp, f1)
	return refinedStep(h0, d1, secondDerivative(y, f0, f1, h0, cfg))
}

// scaledNorms are the RMS norms of y and of f(t, y) relative to AbsTol + RelTol·|y|.
func scaledNorms(y, f0 []float64, cfg Config) (d0, d1 float64) {
	for i := range y {
		sc := cfg.AbsTol + cfg.RelTol*math.Abs(y[i])
		d0 += (y[i] / sc) * (y[i] / sc)
		d1 += (f0[i] / sc) * (f0[i] / sc)
	}
	n := float64(len(y))
	return math.Sqrt(d0 / n), math.Sqrt(d1 / n)
}

// firstGuess is h₀ of the heuristic.
func firstGuess(d0, d1 float64) float64 {
	if d0 >= 1e-5 && d1 >= 1e-5 {
		return 0.01 * d0 / d1
	}
	return 1e-6
}

// secondDerivative is the RMS norm of (f(t+h₀, y+h₀f₀) − f₀)/h₀, scaled as in scaledNorms.
func secondDerivative(y, f0, f1 []float64, h0 float64, cfg Config) float64 {
	var d2 float64
	for i := range y {
		sc := cfg.AbsTol + cfg.RelTol*math.Abs(y[i])
		v := (f1[i] - f0[i]) / sc
		d2 += v * v
	}
	return math.Sqrt(d2/float64(len(y))) / h0
}

// refinedStep is the heuristic's step from h₀ and the norms of the first and second
// derivatives.
func refinedStep(h0, d1, d2 float64) float64 {
	var h1 float64
	if math.Max(d1, d2) <= 1e-15 {
		h1 = math.Max(1e-6, h0*1e-3)
	} else {
		h1 = math.Pow(0.01/math.Max(d1, d2), 1.0/5)
	}
	return math.Min(100*h0, h1)
}
