package task

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gosbi/gosbi/internal/sbibmtest"
)

// TestSolveODEExact compares with closed-form solutions: y′ = y·cos t (y = e^{sin t}) and the
// harmonic oscillator y″ = −y (y = cos t). The error must be below 100·RelTol.
func TestSolveODEExact(t *testing.T) {
	times := []float64{0.5, 1, 2.5, 7, 20}
	for _, tol := range []float64{1e-6, 1e-10} {
		opt := ODEConfig{RelTol: tol, AbsTol: tol}
		sol, err := SolveODE(func(t float64, y, dy []float64) { dy[0] = y[0] * math.Cos(t) }, 0, []float64{1}, times, opt)
		if err != nil {
			t.Fatal(err)
		}
		for i, tt := range times {
			if want := math.Exp(math.Sin(tt)); math.Abs(sol[i][0]-want) > 100*tol*want {
				t.Errorf("tol %g: y(%v) = %v, want %v", tol, tt, sol[i][0], want)
			}
		}
		sol, err = SolveODE(func(_ float64, y, dy []float64) { dy[0], dy[1] = y[1], -y[0] }, 0, []float64{1, 0}, times, opt)
		if err != nil {
			t.Fatal(err)
		}
		for i, tt := range times {
			if math.Abs(sol[i][0]-math.Cos(tt)) > 100*tol || math.Abs(sol[i][1]+math.Sin(tt)) > 100*tol {
				t.Errorf("tol %g: oscillator at %v = %v", tol, tt, sol[i])
			}
		}
	}
	_, err := SolveODE(func(_ float64, y, dy []float64) { dy[0] = y[0] * y[0] }, 0, []float64{1}, []float64{2}, ODEConfig{})
	if !errors.Is(err, ErrODE) {
		t.Errorf("blow-up of y′ = y² at t = 1: error %v", err)
	}
	if _, err := SolveODE(func(_ float64, y, dy []float64) { dy[0] = 0 }, 1, []float64{1}, []float64{0.5}, ODEConfig{}); !errors.Is(err, ErrODE) {
		t.Errorf("time before t0: error %v", err)
	}
}

// TestSIRSolution checks the SIR solution against its invariants, S + I + R = N and
// S = S₀·exp(−(β/γ)·(R − R₀)/N) (from dS/dR = −(β/γ)·S/N), and against a solve with
// tolerances 10⁻¹² (the high-accuracy value): relative error ≤ 10⁻⁶ at the kept days.
func TestSIRSolution(t *testing.T) {
	for _, th := range [][2]float64{{0.4, 0.125}, {1.2, 0.1}, {0.2, 0.15}} {
		sol, err := solveSIR(th[0], th[1])
		if err != nil {
			t.Fatal(err)
		}
		f := func(_ float64, u, du []float64) {
			inf := th[0] * u[0] * u[1] / sirN
			du[0], du[1], du[2] = -inf, inf-th[1]*u[1], th[1]*u[1]
		}
		ref, err := SolveODE(f, 0, []float64{sirN - 1, 1, 0}, sirTimes, ODEConfig{RelTol: 1e-12, AbsTol: 1e-12})
		if err != nil {
			t.Fatal(err)
		}
		for j, u := range sol {
			if math.Abs(u[0]+u[1]+u[2]-sirN) > 1e-6*sirN {
				t.Errorf("θ=%v day %v: S+I+R = %v", th, sirTimes[j], u[0]+u[1]+u[2])
			}
			r := ref[j]
			if s := (sirN - 1) * math.Exp(-th[0]/th[1]*r[2]/sirN); math.Abs(r[0]-s) > 1e-8*sirN {
				t.Errorf("θ=%v day %v: S = %v, invariant gives %v", th, sirTimes[j], r[0], s)
			}
			for c := 0; c < 3; c++ {
				if math.Abs(u[c]-r[c]) > 1e-6*math.Max(math.Abs(r[c]), 1) {
					t.Errorf("θ=%v day %v: u[%d] = %v, high-accuracy %v", th, sirTimes[j], c, u[c], r[c])
				}
			}
		}
	}
}

// TestLotkaVolterraSolution checks the conserved quantity V = δx − γ·ln x + βy − α·ln y of
// the Lotka–Volterra ODE along the solution (relative change ≤ 10⁻⁶) and the agreement with
// a 10⁻¹²-tolerance solve (relative error ≤ 10⁻⁵, far below the 10% observation noise).
func TestLotkaVolterraSolution(t *testing.T) {
	for _, th := range [][]float64{{0.88, 0.05, 0.88, 0.05}, {1.2, 0.03, 0.6, 0.08}, {0.5, 0.1, 1.5, 0.02}} {
		sol, err := solveLV(th)
		if err != nil {
			t.Fatal(err)
		}
		a, b, c, d := th[0], th[1], th[2], th[3]
		v := func(x, y float64) float64 { return d*x - c*math.Log(x) + b*y - a*math.Log(y) }
		v0 := v(30, 1)
		f := func(_ float64, u, du []float64) {
			du[0], du[1] = a*u[0]-b*u[0]*u[1], -c*u[1]+d*u[0]*u[1]
		}
		ref, err := SolveODE(f, 0, []float64{30, 1}, lvTimes, ODEConfig{RelTol: 1e-12, AbsTol: 1e-12})
		if err != nil {
			t.Fatal(err)
		}
		for j, u := range sol {
			if math.Abs(v(u[0], u[1])-v0) > 1e-6*math.Abs(v0) {
				t.Errorf("θ=%v t=%v: V = %v, V(0) = %v", th, lvTimes[j], v(u[0], u[1]), v0)
			}
			for s := 0; s < 2; s++ {
				if math.Abs(u[s]-ref[j][s]) > 1e-5*math.Max(math.Abs(ref[j][s]), 1e-3) {
					t.Errorf("θ=%v t=%v: u[%d] = %v, high-accuracy %v", th, lvTimes[j], s, u[s], ref[j][s])
				}
			}
		}
	}
}

// TestSIRSimulator: for fixed θ, x_j ~ Binomial(1000, I(t_j)/N); the sample mean over n
// simulations must be within 5 standard errors of 1000·I(t_j)/N.
func TestSIRSimulator(t *testing.T) {
	const n = 2000
	th := []float64{0.5, 0.12}
	x := SIR().Simulate(rand.New(rand.NewPCG(1, 1)), constTheta(n, th...))
	sol, _ := solveSIR(th[0], th[1])
	for j := range sirTimes {
		p := sol[j][1] / sirN
		m := mean(column(x, j))
		se := math.Sqrt(1000 * p * (1 - p) / n)
		if math.Abs(m-1000*p) > 5*se+1e-9 {
			t.Errorf("day %v: mean %v, want %v ± %v", sirTimes[j], m, 1000*p, 5*se)
		}
	}
}

// TestLotkaVolterraSimulator: log x_j − log u(t_j) ~ N(0, 0.1²) for fixed θ.
func TestLotkaVolterraSimulator(t *testing.T) {
	const n = 2000
	th := []float64{0.9, 0.04, 1.1, 0.06}
	x := LotkaVolterra().Simulate(rand.New(rand.NewPCG(1, 1)), constTheta(n, th...))
	sol, _ := solveLV(th)
	for s := 0; s < 2; s++ {
		for j := range lvTimes {
			d := column(x, 10*s+j)
			for i := range d {
				d[i] = math.Log(d[i]) - math.Log(sol[j][s])
			}
			if m, se := meanSE(d); math.Abs(m) > 5*se {
				t.Errorf("species %d t=%v: log-noise mean %v", s, lvTimes[j], m)
			}
			if v, se := varSE(d); math.Abs(v-0.01) > 5*se {
				t.Errorf("species %d t=%v: log-noise variance %v ± %v", s, lvTimes[j], v, se)
			}
		}
	}
}

// TestODEObservationsAgree checks the stored sbibm observations (simulated with Julia's solver)
// against our ODE solutions at the true parameters: each SIR count must have a two-sided
// binomial tail probability above 10⁻⁶, and each Lotka–Volterra value a log-noise |z| < 5.
func TestODEObservationsAgree(t *testing.T) {
	sbibmtest.Use(t)
	for k := 1; k <= NumObservations; k++ {
		x, th := observed(t, SIR(), k)
		sol, err := solveSIR(th[0], th[1])
		if err != nil {
			t.Fatal(err)
		}
		for j, u := range sol {
			b := distuv.Binomial{N: 1000, P: math.Min(1, math.Max(0, u[1]/sirN))}
			lo, hi := b.CDF(x[j]), 1-b.CDF(x[j]-1)
			if math.Min(lo, hi) < 1e-6 {
				t.Errorf("sir obs %d day %v: x = %v implausible for p = %v", k, sirTimes[j], x[j], b.P)
			}
		}
		x, th = observed(t, LotkaVolterra(), k)
		lv, err := solveLV(th)
		if err != nil {
			t.Fatal(err)
		}
		for s := 0; s < 2; s++ {
			for j := range lvTimes {
				if z := (math.Log(x[10*s+j]) - math.Log(lv[j][s])) / 0.1; math.Abs(z) > 5 {
					t.Errorf("lotka_volterra obs %d species %d t=%v: z = %v", k, s, lvTimes[j], z)
				}
			}
		}
	}
}

// TestSolveODEBadConfig checks that a negative or NaN setting is an error naming it, not a
// silent switch to the defaults; zero still means the default.
func TestSolveODEBadConfig(t *testing.T) {
	decay := func(_ float64, y, dy []float64) { dy[0] = -y[0] }
	for _, c := range []ODEConfig{{RelTol: -1e-8}, {AbsTol: math.NaN()}, {MaxSteps: -5}} {
		if _, err := SolveODE(decay, 0, []float64{1}, []float64{1}, c); err == nil || !strings.Contains(err.Error(), "must be positive") {
			t.Errorf("%+v: err = %v, want an error saying the settings must be positive", c, err)
		}
	}
	y, err := SolveODE(decay, 0, []float64{1}, []float64{1}, ODEConfig{})
	if err != nil || math.Abs(y[0][0]-math.Exp(-1)) > 1e-5 {
		t.Errorf("zero config: y(1) = %v, err %v; want e^-1 with the default tolerances", y, err)
	}
}

// TestSolveODEMinTolerance checks that a RelTol or AbsTol below 10⁻¹⁴, finer than float64
// can resolve, is refused with an error naming the field and the limit rather than solved
// to a tolerance the steps cannot meet (with 10⁻²⁰ the answer of y′ = y·cos t is off by
// about 10⁻¹³ at t = 20); 10⁻¹⁴ itself is taken.
func TestSolveODEMinTolerance(t *testing.T) {
	f := func(t float64, y, dy []float64) { dy[0] = y[0] * math.Cos(t) }
	for _, c := range []struct {
		cfg  ODEConfig
		want string // "" for no error
	}{
		{ODEConfig{RelTol: 1e-20, AbsTol: 1e-20}, "RelTol = 1e-20 is tighter than float64 can resolve: use at least 1e-14"},
		{ODEConfig{RelTol: 1e-15}, "RelTol = 1e-15 is tighter than float64 can resolve"},
		{ODEConfig{AbsTol: 1e-300}, "AbsTol = 1e-300 is tighter than float64 can resolve"},
		{ODEConfig{RelTol: 1e-14, AbsTol: 1e-14}, ""},
	} {
		y, err := SolveODE(f, 0, []float64{1}, []float64{20}, c.cfg)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v", c.cfg, err)
		case c.want == "" && math.Abs(y[0][0]-math.Exp(math.Sin(20))) > 1e-12:
			t.Errorf("%+v: y(20) = %v, want %v", c.cfg, y[0][0], math.Exp(math.Sin(20)))
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: error %v, want one containing %q", c.cfg, err, c.want)
		}
	}
}
