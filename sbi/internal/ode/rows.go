package ode

import (
	"fmt"
	"math"
)

// RowsFunc evaluates the right-hand sides of n independent systems of dim equations at once:
// for every row i it writes f(t[i], y_i) into row i of dy, where y and dy hold n rows of dim
// values each (row-major) and t holds n times.
type RowsFunc func(t, y, dy []float64)

// RowsResult reports a SolveRows call.
type RowsResult struct {
	Calls int // calls of the right-hand side, each on all n rows
	// Failed is nil when every system reached t1; otherwise Failed[i] is nil or the error
	// (wrapping ErrODE) that stopped system i, whose row of y is then NaN.
	Failed []error
}

// Err returns the first error of a failed row, naming how many failed, or nil.
func (r RowsResult) Err() error {
	var first error
	count := 0
	for _, e := range r.Failed {
		if e != nil {
			if first == nil {
				first = e
			}
			count++
		}
	}
	if count > 1 {
		return fmt.Errorf("%d systems failed, the first: %w", count, first)
	}
	return first
}

// SolveRows integrates the n independent systems dy_i/dt = f(t, y_i), i = 0…n−1, of dim
// equations each, from t0 to t1 ≥ t0: y holds the n initial rows and receives the rows at t1.
//
// Every system is a Solve of its own (its own initial step, step sizes, acceptances and error
// norm over its own dim components), but all advance together: each call of f evaluates every
// row at its own time, including rows already at t1 (at t1 again, their values unused). So the
// n rows cost one call of f per stage, as a network on a batch wants, and the result of a row
// depends on its own initial value only, not on the other rows, their number or their
// difficulty. The calls made are those of the system that needs the most steps.
//
// A system that exceeds MaxSteps, whose state or error becomes non-finite, or whose step
// underflows stops with an error in RowsResult.Failed and a NaN row; the others go on. The
// error return is for an invalid configuration, tolerances below MinTolerance included
// (Config.WithDefaults).
func SolveRows(f RowsFunc, n, dim int, t0, t1 float64, y []float64, cfg Config) (RowsResult, error) {
	var res RowsResult
	cfg, err := cfg.WithDefaults()
	if err != nil {
		return res, err
	}
	if n < 0 || dim < 1 || len(y) != n*dim {
		panic(fmt.Sprintf("ode: SolveRows: %d values for %d rows of %d, expected n ≥ 0, dim ≥ 1 and n·dim values", len(y), n, dim))
	}
	if !(t1 >= t0) || math.IsInf(t0, 0) || math.IsInf(t1, 0) {
		return res, fmt.Errorf("ode: SolveRows from %v to %v, expected finite times with t1 ≥ t0", t0, t1)
	}
	if n == 0 || t1 == t0 {
		return res, nil
	}
	s := newRowSolver(f, n, dim, cfg, y)
	s.start(t0)
	for s.active > 0 {
		s.step(t1)
	}
	res.Calls, res.Failed = s.calls, s.failed
	return res, nil
}

// rowSolver is the state of a SolveRows call.
type rowSolver struct {
	f        RowsFunc
	n, dim   int
	cfg      Config
	y        []float64    // the current rows
	k        [7][]float64 // stage derivatives, n·dim each; k[0] is f(t, y) of the current rows
	tmp      []float64    // stage points; after stage 7, the 5th-order solution
	t, h, hs []float64    // per row: time, proposed step, step taken in this round
	tau      []float64    // per row: the time of the stage being evaluated
	steps    []int        // per row: steps tried
	done     []bool       // per row: at t1, or failed
	last     []bool       // per row: this round's step ends at t1
	failed   []error      // nil until a row fails
	active   int          // rows not done
	calls    int          // calls of f
	errRows  [][]float64  // k as a slice of slices, for errorNorm
}

func newRowSolver(f RowsFunc, n, dim int, cfg Config, y []float64) *rowSolver {
	s := &rowSolver{f: f, n: n, dim: dim, cfg: cfg, y: y, active: n,
		tmp: make([]float64, n*dim), t: make([]float64, n), h: make([]float64, n), hs: make([]float64, n),
		tau: make([]float64, n), steps: make([]int, n), done: make([]bool, n), last: make([]bool, n)}
	for j := range s.k {
		s.k[j] = make([]float64, n*dim)
	}
	s.errRows = s.k[:]
	return s
}

func (s *rowSolver) call(t, y, dy []float64) {
	s.f(t, y, dy)
	s.calls++
}

// start evaluates f at t0 and chooses every row's first step (Hairer's heuristic, per row).
func (s *rowSolver) start(t0 float64) {
	for i := range s.t {
		s.t[i] = t0
	}
	s.call(s.t, s.y, s.k[0])
	h0 := make([]float64, s.n)
	d1 := make([]float64, s.n)
	for i := 0; i < s.n; i++ {
		lo, hi := i*s.dim, (i+1)*s.dim
		var d0 float64
		d0, d1[i] = scaledNorms(s.y[lo:hi], s.k[0][lo:hi], s.cfg)
		h0[i] = firstGuess(d0, d1[i])
		for c := lo; c < hi; c++ {
			s.tmp[c] = s.y[c] + h0[i]*s.k[0][c]
		}
		s.tau[i] = t0 + h0[i]
	}
	s.call(s.tau, s.tmp, s.k[1])
	for i := 0; i < s.n; i++ {
		lo, hi := i*s.dim, (i+1)*s.dim
		d2 := secondDerivative(s.y[lo:hi], s.k[0][lo:hi], s.k[1][lo:hi], h0[i], s.cfg)
		s.h[i] = refinedStep(h0[i], d1[i], d2)
	}
}

// step tries one step of every active row: the stages on all rows, then acceptance or
// rejection per row.
func (s *rowSolver) step(t1 float64) {
	for i := 0; i < s.n; i++ {
		s.hs[i], s.last[i] = 0, false
		if s.done[i] {
			continue
		}
		if s.steps[i]++; s.steps[i] > s.cfg.MaxSteps {
			s.fail(i, fmt.Errorf("%w: more than %d steps before t = %v", ErrODE, s.cfg.MaxSteps, t1))
			continue
		}
		s.hs[i] = s.h[i]
		if s.t[i]+s.h[i] >= t1 {
			s.hs[i], s.last[i] = t1-s.t[i], true
		}
	}
	if s.active == 0 {
		return
	}
	for st := 1; st < 7; st++ {
		for i := 0; i < s.n; i++ {
			h := s.hs[i]
			for c := i * s.dim; c < (i+1)*s.dim; c++ {
				acc := s.y[c]
				for j := 0; j < st; j++ {
					acc += h * dpA[st][j] * s.k[j][c]
				}
				s.tmp[c] = acc
			}
			s.tau[i] = s.t[i] + dpC[st]*h
		}
		s.call(s.tau, s.tmp, s.k[st])
	}
	for i := 0; i < s.n; i++ {
		if !s.done[i] {
			s.settle(i, t1)
		}
	}
}

// settle accepts or rejects the step just taken by row i.
func (s *rowSolver) settle(i int, t1 float64) {
	lo, hi := i*s.dim, (i+1)*s.dim
	h := s.hs[i]
	errNorm := errorNorm(h, s.y, s.tmp, s.errRows, lo, hi, s.cfg)
	if math.IsNaN(errNorm) || math.IsInf(errNorm, 0) || !finite(s.tmp[lo:hi]) {
		s.fail(i, fmt.Errorf("%w: non-finite state near t = %v", ErrODE, s.t[i]))
		return
	}
	factor := stepFactor(errNorm)
	if errNorm > 1 {
		s.h[i] = h * math.Min(1, factor)
		if s.h[i] < 1e-12*math.Max(1, math.Abs(s.t[i])) {
			s.fail(i, fmt.Errorf("%w: step size underflow at t = %v", ErrODE, s.t[i]))
		}
		return
	}
	copy(s.y[lo:hi], s.tmp[lo:hi])
	copy(s.k[0][lo:hi], s.k[6][lo:hi]) // first same as last: f(t_new, y_new) is stage 7
	if s.last[i] {
		s.t[i], s.done[i] = t1, true
		s.active--
		return
	}
	s.t[i] += h
	s.h[i] = h * factor
}

// fail stops row i with err.
func (s *rowSolver) fail(i int, err error) {
	if s.failed == nil {
		s.failed = make([]error, s.n)
	}
	s.failed[i] = err
	for c := i * s.dim; c < (i+1)*s.dim; c++ {
		s.y[c] = math.NaN()
	}
	s.done[i] = true
	s.active--
}

func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
