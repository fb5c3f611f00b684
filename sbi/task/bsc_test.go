package task

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestConjugateGaussianPosterior draws (μ, x) from the joint model and standardizes μ by its
// exact posterior: z = (μ − μ_post)/σ_post must be N(0, 1) (mean and variance within 5
// standard errors), which ties the closed form to the simulator and the prior.
func TestConjugateGaussianPosterior(t *testing.T) {
	const n = 5000
	tk := ConjugateGaussian()
	rng := rand.New(rand.NewPCG(1, 1))
	theta := tk.Prior().Sample(rng, n)
	x := tk.Simulate(rng, theta)
	z := make([]float64, n)
	for i := range z {
		post, err := tk.ExactPosterior(x.RawRowView(i))
		if err != nil {
			t.Fatal(err)
		}
		m := post.(interface{ Mean() []float64 }).Mean()[0]
		sd := math.Sqrt(post.(interface{ Covariance() *mat.SymDense }).Covariance().At(0, 0))
		z[i] = (theta.At(i, 0) - m) / sd
	}
	if m, s := meanSE(z); math.Abs(m) > 5*s {
		t.Errorf("standardized posterior mean %v ± %v", m, s)
	}
	if v, s := varSE(z); math.Abs(v-1) > 5*s {
		t.Errorf("standardized posterior variance %v ± %v", v, s)
	}
}

// TestOrnsteinUhlenbeck checks the numbers of the paper's example: with μ = 1, D = 10, x₀ = 10,
// γ = 2, T = 1, E X_T = 1 + 9e⁻² ≈ 2.218 and Var X_T = 10(1 − e⁻⁴)/2 ≈ 4.908; and the bivariate
// version's correlation ρ. Tolerances: 5 standard errors.
func TestOrnsteinUhlenbeck(t *testing.T) {
	x := OrnsteinUhlenbeck().Simulate(rand.New(rand.NewPCG(2, 2)), constTheta(200, 1, 10))
	var all []float64
	for i := 0; i < 200; i++ {
		all = append(all, x.RawRowView(i)...)
	}
	if m, s := meanSE(all); math.Abs(m-(1+9*math.Exp(-2))) > 5*s {
		t.Errorf("mean %v ± %v, want %v", m, s, 1+9*math.Exp(-2))
	}
	if v, s := varSE(all); math.Abs(v-10*(1-math.Exp(-4))/2) > 5*s {
		t.Errorf("variance %v ± %v, want %v", v, s, 10*(1-math.Exp(-4))/2)
	}
	x = BivariateOrnsteinUhlenbeck().Simulate(rand.New(rand.NewPCG(3, 3)), constTheta(200, 1, 10, 0.5))
	want := 1 + 4*math.Exp(-2)
	sd := math.Sqrt(10 * (1 - math.Exp(-4)) / 2)
	var a, b, p []float64
	for i := 0; i < 200; i++ {
		r := x.RawRowView(i)
		for k := 0; k < ouN; k++ {
			a, b = append(a, r[2*k]), append(b, r[2*k+1])
			p = append(p, (r[2*k]-want)*(r[2*k+1]-want)/(sd*sd))
		}
	}
	if m, s := meanSE(a); math.Abs(m-want) > 5*s {
		t.Errorf("bivariate mean %v, want %v", m, want)
	}
	if m, s := meanSE(b); math.Abs(m-want) > 5*s {
		t.Errorf("bivariate second mean %v, want %v", m, want)
	}
	if m, s := meanSE(p); math.Abs(m-0.5) > 5*s {
		t.Errorf("correlation %v ± %v, want 0.5", m, s)
	}
}
