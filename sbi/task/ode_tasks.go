package task

import (
	"math"
	"math/rand/v2"

	"github.com/gosbi/gosbi/sbi/dist"
)

// odeTol are the tolerances used for the sir and lotka_volterra simulations.
var odeTol = ODEConfig{RelTol: 1e-8, AbsTol: 1e-9}

const (
	sirN     = 1e6  // population
	sirCount = 1000 // binomial draws per observation time
)

// sirTimes are the days kept by sbibm: the ODE is saved daily on [0, 160] and every 17th value
// kept (indices 0, 17, …, 153).
var sirTimes = func() []float64 {
	t := make([]float64, 10)
	for i := range t {
		t[i] = float64(17 * i)
	}
	return t
}()

// sirPrior is the prior of sbibm's sir: β ~ LogNormal(log 0.4, 0.5), γ ~ LogNormal(log 0.125, 0.2).
func sirPrior() dist.Distribution {
	return dist.NewLogNormal([]float64{math.Log(0.4), math.Log(0.125)}, []float64{0.5, 0.2})
}

// sirLabels name the parameters of sir: the infection and the recovery rate.
var sirLabels = []string{"β", "γ"}

// SIR is sbibm's sir task: β ~ LogNormal(log 0.4, 0.5), γ ~ LogNormal(log 0.125, 0.2); the SIR
// ODE dS = −βSI/N, dI = βSI/N − γI, dR = γI with N = 10⁶, (S, I, R)(0) = (N−1, 1, 0), solved
// in Go (Dormand–Prince 5(4), rtol 10⁻⁸, atol 10⁻⁹) at days 0, 17, …, 153, and
// x_j ~ Binomial(1000, I(t_j)/N). A failed solve gives a NaN row.
func SIR() Task {
	return &base{
		name:        "sir",
		prior:       sirPrior(),
		paramLabels: sirLabels, dataDim: 10, files: "sir", obsFile: "observation.csv",
		row: func(rng *rand.Rand, theta, x []float64) {
			sol, err := solveSIR(theta[0], theta[1])
			if err != nil {
				nanFill(x)
				return
			}
			for j, u := range sol {
				p := math.Min(1, math.Max(0, u[1]/sirN))
				x[j] = float64(dist.Binomial(rng, sirCount, p))
			}
		},
	}
}

func solveSIR(beta, gamma float64) ([][]float64, error) { return solveSIRAt(beta, gamma, sirTimes) }

// solveSIRAt solves the SIR ODE and returns (S, I, R) at the given days.
func solveSIRAt(beta, gamma float64, days []float64) ([][]float64, error) {
	f := func(_ float64, u, du []float64) {
		inf := beta * u[0] * u[1] / sirN
		du[0] = -inf
		du[1] = inf - gamma*u[1]
		du[2] = gamma * u[1]
	}
	return SolveODE(f, 0, []float64{sirN - 1, 1, 0}, days, odeTol)
}

// lvTimes are the times kept by sbibm: saved every 0.1 on [0, 20] and every 21st value kept
// (indices 0, 21, …, 189, i.e. t = 0, 2.1, …, 18.9).
var lvTimes = func() []float64 {
	t := make([]float64, 10)
	for i := range t {
		t[i] = 2.1 * float64(i)
	}
	return t
}()

// LotkaVolterra is sbibm's lotka_volterra task: (α, β, γ, δ) ~ LogNormal(μ, 0.5) with
// μ = (−0.125, −3, −0.125, −3); dx/dt = αx − βxy, dy/dt = −γy + δxy from (x, y)(0) = (30, 1),
// solved in Go at t = 0, 2.1, …, 18.9; the data are x_j ~ LogNormal(log clamp(u_j, 10⁻¹⁰, 10⁴),
// 0.1), the 10 prey values followed by the 10 predator values. A failed solve gives a NaN row.
func LotkaVolterra() Task {
	return &base{
		name:        "lotka_volterra",
		prior:       dist.NewLogNormal([]float64{-0.125, -3, -0.125, -3}, fillv(4, 0.5)),
		paramLabels: []string{"α", "β", "γ", "δ"}, dataDim: 20, files: "lotka_volterra", obsFile: "observation.csv",
		row: func(rng *rand.Rand, theta, x []float64) {
			sol, err := solveLV(theta)
			if err != nil {
				nanFill(x)
				return
			}
			for j, u := range sol {
				for s := 0; s < 2; s++ {
					v := math.Min(1e4, math.Max(1e-10, u[s]))
					x[10*s+j] = math.Exp(math.Log(v) + 0.1*rng.NormFloat64())
				}
			}
		},
	}
}

func solveLV(theta []float64) ([][]float64, error) { return solveLVAt(theta, lvTimes) }

// solveLVAt solves the Lotka–Volterra ODE and returns the populations at the given times.
func solveLVAt(theta, times []float64) ([][]float64, error) {
	a, b, c, d := theta[0], theta[1], theta[2], theta[3]
	f := func(_ float64, u, du []float64) {
		du[0] = a*u[0] - b*u[0]*u[1]
		du[1] = -c*u[1] + d*u[0]*u[1]
	}
	return SolveODE(f, 0, []float64{30, 1}, times, odeTol)
}
