package task_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/task"
)

// Names lists every task Get knows (the sbibm benchmark's names and gosbi's own).
func ExampleNames() {
	for _, name := range task.Names() {
		t, err := task.Get(name)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: dim θ = %d, dim x = %d\n", name, t.ParamDim(), t.DataDim())
	}
	// Output:
	// arch: dim θ = 2, dim x = 100
	// arfima: dim θ = 4, dim x = 15000
	// bernoulli_glm: dim θ = 10, dim x = 10
	// bernoulli_glm_raw: dim θ = 10, dim x = 100
	// bivariate_ornstein_uhlenbeck: dim θ = 3, dim x = 200
	// conjugate_gaussian: dim θ = 1, dim x = 10
	// gaussian_linear: dim θ = 10, dim x = 10
	// gaussian_linear_uniform: dim θ = 10, dim x = 10
	// gaussian_mixture: dim θ = 2, dim x = 2
	// lotka_volterra: dim θ = 4, dim x = 20
	// lotka_volterra_raw: dim θ = 4, dim x = 402
	// lotka_volterra_sde: dim θ = 4, dim x = 202
	// mg1: dim θ = 3, dim x = 5
	// mixed: dim θ = 2, dim x = 2
	// ornstein_uhlenbeck: dim θ = 2, dim x = 100
	// sir: dim θ = 2, dim x = 10
	// sir_jump: dim θ = 2, dim x = 161
	// sir_jump_onset: dim θ = 2, dim x = 161
	// sir_raw: dim θ = 2, dim x = 161
	// slcp: dim θ = 5, dim x = 8
	// spatial_sir: dim θ = 2, dim x = 7500
	// tc_lotka_volterra: dim θ = 2, dim x = 2002
	// tc_slcp: dim θ = 2, dim x = 8
	// two_moons: dim θ = 2, dim x = 2
	// weinberg: dim θ = 1, dim x = 20
}

// gaussian_linear has a closed-form posterior, N(x/2, 0.05·I), to check an estimator against.
func ExampleGaussianLinear() {
	t := task.GaussianLinear()
	rng := rand.New(rand.NewPCG(1, 2))
	theta := t.Prior().Sample(rng, 1)
	xo := t.Simulate(rng, theta).RawRowView(0)
	post, err := t.ExactPosterior(xo)
	if err != nil {
		fmt.Println(err)
		return
	}
	mean, cov, ok := dist.MeanCov(post)
	fmt.Println(t.Name(), post.Dim(), ok)
	fmt.Printf("mean[0] = x[0]/2: %v, variance %.2f\n", math.Abs(mean[0]-xo[0]/2) < 1e-12, cov.At(0, 0))
	// Output:
	// gaussian_linear 10 true
	// mean[0] = x[0]/2: true, variance 0.05
}

// The slcp task: five parameters, each in [−3, 3], and four 2-D points per simulation.
// CheckParameters tells why parameters cannot be simulated before Simulate panics on them.
func ExampleSLCP() {
	t := task.SLCP()
	rng := rand.New(rand.NewPCG(1, 2))
	x := t.Simulate(rng, t.Prior().Sample(rng, 10))
	r, c := x.Dims()
	fmt.Println(t.ParamLabels(), r, c)
	fmt.Println(task.CheckParameters(t, mat.NewDense(1, 5, []float64{0, 0, 4, 1, 1})))
	// Output:
	// [θ₁ θ₂ θ₃ θ₄ θ₅] 10 8
	// task slcp: row 0, θ = [0 0 4 1 1], lies outside the prior's support [[-3 -3 -3 -3 -3], [3 3 3 3 3]]; draw θ from t.Prior() or clip it to the support
}
