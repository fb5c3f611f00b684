package ode

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// decayRows is y′ = λ_i·y for row i (dim 1), with solution y_i(t) = y_i(0)·e^{λ_i t}.
func decayRows(lambda []float64, calls *int) RowsFunc {
	return func(t, y, dy []float64) {
		if len(t) != len(lambda) || len(y) != len(lambda) {
			panic("decayRows: wrong batch")
		}
		for i := range y {
			dy[i] = lambda[i] * y[i]
		}
		if calls != nil {
			*calls++
		}
	}
}

// TestSolveRowsClosedForm integrates rows with different rates and a time-dependent system
// (y′ = y·cos t, y = e^{sin t}) and compares with the closed forms.
func TestSolveRowsClosedForm(t *testing.T) {
	lambda := []float64{-3, -0.5, 0, 0.7, 2.5}
	y := []float64{1, 2, -1, 0.5, 1e-3}
	want := make([]float64, len(y))
	for i := range y {
		want[i] = y[i] * math.Exp(lambda[i]*1.5)
	}
	cfg := Config{RelTol: 1e-9, AbsTol: 1e-12}
	if _, err := SolveRows(decayRows(lambda, nil), len(y), 1, 0, 1.5, y, cfg); err != nil {
		t.Fatal(err)
	}
	for i := range y {
		if math.Abs(y[i]-want[i]) > 1e-7*math.Max(1, math.Abs(want[i])) {
			t.Errorf("row %d (λ = %v): y(1.5) = %.12g, closed form %.12g", i, lambda[i], y[i], want[i])
		}
	}

	// Two-dimensional rows with the time of each row in the right-hand side.
	osc := func(tt, y, dy []float64) {
		for i := range tt {
			dy[2*i] = y[2*i] * math.Cos(tt[i])
			dy[2*i+1] = -y[2*i+1] * math.Sin(tt[i]) // y = e^{cos t − 1}
		}
	}
	y2 := []float64{1, 1, 2, 3}
	if _, err := SolveRows(osc, 2, 2, 0, 4, y2, cfg); err != nil {
		t.Fatal(err)
	}
	for i, w := range []float64{math.Exp(math.Sin(4)), math.Exp(math.Cos(4) - 1), 2 * math.Exp(math.Sin(4)), 3 * math.Exp(math.Cos(4)-1)} {
		if math.Abs(y2[i]-w) > 1e-7 {
			t.Errorf("component %d: y(4) = %.12g, closed form %.12g", i, y2[i], w)
		}
	}
}

// TestSolveRowsMatchesSolve: one row is integrated exactly as Solve integrates the system, step
// for step and bit for bit.
func TestSolveRowsMatchesSolve(t *testing.T) {
	f := func(tt float64, y, dy []float64) {
		dy[0] = y[1]
		dy[1] = -y[0] + 0.3*math.Sin(2*tt)
	}
	cfg := Config{RelTol: 1e-6, AbsTol: 1e-8}
	ref, err := Solve(f, 0, []float64{1, 0}, []float64{3}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	y := []float64{1, 0}
	res, err := SolveRows(func(tt, y, dy []float64) { f(tt[0], y, dy) }, 1, 2, 0, 3, y, cfg)
	if err != nil || res.Err() != nil {
		t.Fatal(err, res.Err())
	}
	if y[0] != ref[0][0] || y[1] != ref[0][1] {
		t.Errorf("SolveRows %v, Solve %v: expected the same bits", y, ref[0])
	}
}

// TestSolveRowsIndependent: a row's result does not depend on the rows beside it, even when
// they need many more steps, and the calls are those of the hardest row.
func TestSolveRowsIndependent(t *testing.T) {
	cfg := Config{RelTol: 1e-8, AbsTol: 1e-10}
	alone := []float64{1}
	var callsAlone int
	if _, err := SolveRows(decayRows([]float64{-0.5}, &callsAlone), 1, 1, 0, 1, alone, cfg); err != nil {
		t.Fatal(err)
	}
	both := []float64{7, 1, -2}
	var calls int
	res, err := SolveRows(decayRows([]float64{-40, -0.5, 9}, &calls), 3, 1, 0, 1, both, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if both[1] != alone[0] {
		t.Errorf("row beside stiffer rows: %v, alone %v: expected the same bits", both[1], alone[0])
	}
	if calls <= callsAlone || res.Calls != calls {
		t.Errorf("calls: %d with the hard rows (reported %d), %d alone: expected more with them, and reported as made", calls, res.Calls, callsAlone)
	}
	if (res.Calls-2)%6 != 0 {
		t.Errorf("%d calls, expected 2 to start and 6 per round of steps", res.Calls)
	}
}

// TestSolveRowsFailure: a row that blows up (y′ = y², y(0) = 1, infinite at t = 1) stops with
// ErrODE and a NaN row; the other rows finish.
func TestSolveRowsFailure(t *testing.T) {
	f := func(tt, y, dy []float64) {
		dy[0] = y[0] * y[0]
		dy[1] = -y[1]
	}
	y := []float64{1, 1}
	res, err := SolveRows(f, 2, 1, 0, 2, y, Config{MaxSteps: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed == nil || !errors.Is(res.Failed[0], ErrODE) || res.Failed[1] != nil {
		t.Fatalf("Failed = %v, expected an ErrODE for row 0 only", res.Failed)
	}
	if !errors.Is(res.Err(), ErrODE) {
		t.Errorf("Err() = %v, expected ErrODE", res.Err())
	}
	if !math.IsNaN(y[0]) || math.Abs(y[1]-math.Exp(-2)) > 1e-5 {
		t.Errorf("y = %v, expected NaN and e^-2", y)
	}
}

func TestSolveRowsBadInput(t *testing.T) {
	f := decayRows([]float64{1}, nil)
	for _, c := range []Config{{RelTol: -1}, {AbsTol: math.NaN()}, {MaxSteps: -1}, {RelTol: math.Inf(1)}} {
		if _, err := SolveRows(f, 1, 1, 0, 1, []float64{1}, c); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
	if _, err := SolveRows(f, 1, 1, 1, 0, []float64{1}, Config{}); err == nil {
		t.Error("t1 < t0: no error")
	}
	y := []float64{3}
	if res, err := SolveRows(f, 1, 1, 0.5, 0.5, y, Config{}); err != nil || res.Calls != 0 || y[0] != 3 {
		t.Errorf("t1 = t0: %v, %v, y %v: expected nothing to do", res, err, y)
	}
}

// TestSolveRowsMinTolerance: SolveRows (the flow-matching fields' solver) and Solve (behind
// task.SolveODE) refuse a RelTol or AbsTol below MinTolerance, naming it and the limit, and
// take MinTolerance itself.
func TestSolveRowsMinTolerance(t *testing.T) {
	f := decayRows([]float64{-1}, nil)
	for _, c := range []struct {
		cfg  Config
		want string // "" for no error
	}{
		{Config{RelTol: 1e-15}, "RelTol = 1e-15 is tighter than float64 can resolve: use at least 1e-14"},
		{Config{AbsTol: 1e-300}, "AbsTol = 1e-300 is tighter than float64 can resolve"},
		{Config{RelTol: MinTolerance, AbsTol: MinTolerance}, ""},
		{Config{}, ""},
	} {
		_, err := SolveRows(f, 1, 1, 0, 1, []float64{1}, c.cfg)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v", c.cfg, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: error %v, want one containing %q", c.cfg, err, c.want)
		}
		_, err = Solve(func(_ float64, y, dy []float64) { dy[0] = -y[0] }, 0, []float64{1}, []float64{1}, c.cfg)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("Solve %+v: %v", c.cfg, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("Solve %+v: error %v, want one containing %q", c.cfg, err, c.want)
		}
	}
}
