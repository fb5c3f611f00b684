package task

import (
	"math"
	"math/rand/v2"

	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/internal/safe"
)

// The examples of Bon, Warne, Nott and Drovandi, "Bayesian score calibration for approximate
// models": the exact (target) models, whose simulations calibrate an approximate posterior.

const conjugateN = 10

// ConjugateGaussianTask is the conjugate Gaussian example; it has an exact posterior.
type ConjugateGaussianTask struct{ *base }

// ConjugateGaussian is the conjugate Gaussian example (Appendix D.1): μ ~ N(0, 4²) and
// x = 10 draws of N(μ, 1).
func ConjugateGaussian() *ConjugateGaussianTask {
	return &ConjugateGaussianTask{&base{
		name: "conjugate_gaussian", prior: dist.NewNormal([]float64{0}, []float64{4}),
		paramLabels: []string{"μ"}, dataDim: conjugateN,
		row: func(rng *rand.Rand, theta, x []float64) {
			for i := range x {
				x[i] = theta[0] + rng.NormFloat64()
			}
		},
	}}
}

// ExactPosterior is N(μ_post, σ²_post) with σ²_post = 1/(1/16 + n) and
// μ_post = σ²_post·Σx (prior mean 0, noise variance 1).
func (t *ConjugateGaussianTask) ExactPosterior(x []float64) (dist.Distribution, error) {
	if err := checkObs(t.name, x, conjugateN); err != nil {
		return nil, err
	}
	v := 1 / (1.0/16 + float64(len(x)))
	s := 0.0
	for _, xi := range x {
		s += xi
	}
	return dist.NewNormal([]float64{v * s}, []float64{math.Sqrt(v)}), nil
}

// Ornstein–Uhlenbeck settings of the examples: γ = 2 and T = 1 known, 100 realisations.
const (
	ouGamma = 2.0
	ouT     = 1.0
	ouN     = 100
)

// ouMoments is the exact transition of dX = γ(μ − X)dt + σdW over time T from x₀, with
// D = σ²/2: X_T ~ N(μ + (x₀ − μ)e^{−γT}, (D/γ)(1 − e^{−2γT})).
func ouMoments(mu, d, x0 float64) (mean, sd float64) {
	return mu + (x0-mu)*math.Exp(-ouGamma*ouT), math.Sqrt(d / ouGamma * (1 - math.Exp(-2*ouGamma*ouT)))
}

// OrnsteinUhlenbeck is the univariate OU example (Sec. 3.1.1): (μ, D) with μ ~ N(0, 10²) and
// D ~ Exp(rate 1/10); x holds 100 independent values X_T of the OU process started at
// x₀ = 10, drawn from its exact transition (see ouMoments).
func OrnsteinUhlenbeck() Task {
	return &base{
		name:        "ornstein_uhlenbeck",
		prior:       dist.NewIndependent(dist.NewNormal([]float64{0}, []float64{10}), dist.NewGamma([]float64{1}, []float64{0.1})),
		paramLabels: []string{"μ", "D"}, dataDim: ouN,
		row: func(rng *rand.Rand, theta, x []float64) {
			m, s := ouMoments(theta[0], theta[1], 10)
			for i := range x {
				x[i] = m + s*rng.NormFloat64()
			}
		},
	}
}

// BivariateOrnsteinUhlenbeck is the bivariate OU example (Sec. 3.1.2), as its code defines it:
// (μ, D, ρ) with μ ~ N(0, 10²), D ~ Exp(rate 1/10), ρ ~ U(0, 1); x holds 100 independent pairs,
// (y₁, y₂) ~ N with both means μ + (5 − μ)e^{−γT}, both variances (D/γ)(1 − e^{−2γT}) and
// correlation ρ (the paper's linear construction would not give correlation ρ), flattened
// pair by pair.
func BivariateOrnsteinUhlenbeck() Task {
	return &base{
		name: "bivariate_ornstein_uhlenbeck",
		prior: dist.NewIndependent(dist.NewNormal([]float64{0}, []float64{10}),
			dist.NewGamma([]float64{1}, []float64{0.1}), dist.NewBoxUniform([]float64{0}, []float64{1})),
		paramLabels: []string{"μ", "D", "ρ"}, dataDim: 2 * ouN,
		row: func(rng *rand.Rand, theta, x []float64) {
			m, s := ouMoments(theta[0], theta[1], 5)
			rho := theta[2]
			for i := 0; i < ouN; i++ {
				z0, z1 := rng.NormFloat64(), rng.NormFloat64()
				x[2*i] = m + s*z0
				x[2*i+1] = m + s*(rho*z0+math.Sqrt(1-rho*rho)*z1)
			}
		},
	}
}

// MustExactPosterior is ExactPosterior for notebook cells: it panics with its error.
func (t *ConjugateGaussianTask) MustExactPosterior(x []float64) dist.Distribution {
	return safe.Must(t.ExactPosterior(x))
}
