package task

import (
	"fmt"

	"github.com/gosbi/gosbi/sbi/internal/ode"
)

// ODEFunc is the right-hand side dy/dt = f(t, y), written into dy.
type ODEFunc func(t float64, y, dy []float64)

// ODEConfig holds the tolerances and limits of SolveODE; zero fields take the defaults, and a
// negative or NaN field is an error. RelTol and AbsTol below 1e-14 (about 45 times float64's
// rounding of values near 1) are an error too: no step can meet a tolerance finer than the
// rounding of the state.
type ODEConfig struct {
	RelTol, AbsTol float64 // per-component error bound AbsTol + RelTol·|y| (defaults 1e-6, 1e-6)
	MaxSteps       int     // accepted plus rejected steps before giving up (default 100,000)
}

// ErrODE is wrapped by the errors of SolveODE when the solver gives up.
var ErrODE = ode.ErrODE

// SolveODE integrates dy/dt = f(t, y) from y(t0) = y0 and returns y at each of the increasing
// times (all ≥ t0), one slice per time. It uses the explicit Runge–Kutta pair of Dormand and
// Prince, order 5 with an embedded order-4 error estimate, and adapts the step h so that the
// RMS over components of err_i/(AbsTol + RelTol·max(|y_i|, |y_i,new|)) stays ≤ 1, with the
// standard controller h ← h·min(5, max(0.2, 0.9·err^(−1/5))) (Hairer et al., §II.4). Steps
// are shortened to land exactly on the output times. (The solver is the library's one, which
// also integrates the flow-matching fields of package sbi/flow.)
func SolveODE(f ODEFunc, t0 float64, y0 []float64, times []float64, cfg ODEConfig) ([][]float64, error) {
	c := ode.Config{RelTol: cfg.RelTol, AbsTol: cfg.AbsTol, MaxSteps: cfg.MaxSteps}
	if _, err := c.WithDefaults(); err != nil {
		return nil, fmt.Errorf("SolveODE: ODEConfig: %w", err)
	}
	return ode.Solve(ode.Func(f), t0, y0, times, c)
}
