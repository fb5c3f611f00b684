package task_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/task"
)

func Example() {
	t, err := task.Get("two_moons")
	if err != nil {
		fmt.Println(err)
		return
	}
	rng := rand.New(rand.NewPCG(1, 2))
	theta := t.Prior().Sample(rng, 1000)
	x := t.Simulate(rng, theta)
	r, c := x.Dims()
	fmt.Println(t.Name(), t.ParamDim(), t.DataDim(), r, c)
	// Output: two_moons 2 2 1000 2
}

func ExampleTwoMoonsTask_ExactPosterior() {
	t := task.TwoMoons()
	post, err := t.ExactPosterior([]float64{-0.64, 0.16})
	if err != nil {
		fmt.Println(err)
		return
	}
	samples := post.Sample(rand.New(rand.NewPCG(1, 2)), 5000)
	inside := 0
	for _, lp := range post.LogProb(samples) {
		if lp > -1e300 {
			inside++
		}
	}
	fmt.Println(inside)
	// Output: 5000
}

func ExampleSimulate() {
	// The checked form: errors instead of panics, failed rows dropped and counted.
	t := task.SIR()
	rng := rand.New(rand.NewPCG(1, 2))
	sim, err := task.Simulate(rng, t, t.Prior().Sample(rng, 100))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sim.X.RawMatrix().Rows, sim.Dropped)
	// Output: 100 0
}

func ExampleEmbeddingFor() {
	for _, name := range []string{"weinberg", "tc_lotka_volterra"} {
		t, err := task.Get(name)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s (%d values): %v\n", name, t.DataDim(), task.EmbeddingFor(t))
	}
	// Output:
	// weinberg (20 values): <nil>
	// tc_lotka_volterra (2002 values): {[64 64] 10 selu}
}

// The mean-field approximation of the bivariate OU example: a product of Gaussians in (μ,
// log D, logit ρ), which cannot carry the posterior correlation of D and ρ.
func ExampleBivariateOUTask_MeanField() {
	ou := task.BivariateOrnsteinUhlenbeck()
	rng := rand.New(rand.NewPCG(1, 1))
	x := ou.Simulate(rng, mat.NewDense(1, 3, []float64{1, 10, 0.5})) // the paper's truth
	fit, err := ou.MeanField(x.RawRowView(0))
	if err != nil {
		panic(err)
	}
	fmt.Printf("mean of (μ, log D, logit ρ): %.2f\n", fit.Mean)
	fmt.Printf("sd: %.2f\n", fit.SD)
	// Output:
	// mean of (μ, log D, logit ρ): [0.72 2.39 0.24]
	// sd: [0.24 0.10 0.24]
}

// The Whittle log-likelihood of an ARFIMA(2, d, 1) series is higher at the truth than at a
// wrong memory parameter d.
func ExampleARFIMATask_Whittle() {
	arfima, _ := task.NewARFIMA(3000)
	truth := []float64{0.45, 0.1, -0.4, 0.4}
	x := arfima.Simulate(rand.New(rand.NewPCG(1, 1)), mat.NewDense(1, 4, truth))
	w, err := arfima.Whittle(x.RawRowView(0))
	if err != nil {
		panic(err)
	}
	fmt.Println(w.LogLikelihood(truth) > w.LogLikelihood([]float64{0.45, 0.1, -0.4, 0.2}))
	// Output:
	// true
}

// The asymptotic posterior sd's of the Whittle posterior for a series of 15,000 steps, at the
// paper's truth read in the task's MA convention ϑ(z) = 1 + ϑ₁z and in the Box–Jenkins one
// ϑ(z) = 1 − ϑ₁z of the R package fracdiff (ϑ₁ = +0.4 here): √(diag I(θ)⁻¹/n).
func ExampleARFIMATask_WhittleInformation() {
	arfima := task.ARFIMA()
	for _, ma := range []float64{-0.4, 0.4} {
		info, err := arfima.WhittleInformation([]float64{0.45, 0.1, ma, 0.4})
		if err != nil {
			panic(err)
		}
		var ch mat.Cholesky
		ch.Factorize(info)
		var cov mat.SymDense
		ch.InverseTo(&cov)
		fmt.Printf("ϑ₁ = %+.1f:", ma)
		for j := range 4 {
			fmt.Printf(" %.3f", math.Sqrt(cov.At(j, j)/task.ARFIMALength))
		}
		fmt.Println()
	}
	// Output:
	// ϑ₁ = -0.4: 0.065 0.010 0.053 0.023
	// ϑ₁ = +0.4: 0.042 0.029 0.036 0.022
}

// The approximate posterior of the stochastic Lotka–Volterra example, from the quasi-likelihood
// of one coarse Euler–Maruyama path, sampled in the unconstrained coordinates of (β, τ).
func ExampleLotkaVolterraSDETask_QuasiPosterior() {
	lv := task.LotkaVolterraSDE()
	rng := rand.New(rand.NewPCG(1, 1))
	x := lv.Simulate(rng, mat.NewDense(1, 4, []float64{1.5, 1, 3, 1})) // the paper's truth
	u, err := lv.QuasiPosterior(rng, x.RawRowView(0), 200, task.MCMCConfig{Burn: 500})
	if err != nil {
		panic(err)
	}
	r, c := u.Dims()
	fmt.Println(r, "draws of", c, "coordinates: logit β₁…β₄, log τ")
	// Output:
	// 200 draws of 5 coordinates: logit β₁…β₄, log τ
}
