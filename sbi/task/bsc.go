package task

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

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

// BivariateOUTask is the bivariate Ornstein–Uhlenbeck example of Bon et al. (Sec. 3.1.2), whose
// approximate posterior is mean-field variational inference (MeanField).
type BivariateOUTask struct{ *base }

// BivariateOrnsteinUhlenbeck is the bivariate OU example (Sec. 3.1.2), as its code defines it:
// (μ, D, ρ) with μ ~ N(0, 10²), D ~ Exp(rate 1/10), ρ ~ U(0, 1); x holds 100 independent pairs,
// (y₁, y₂) ~ N with both means μ + (5 − μ)e^{−γT}, both variances (D/γ)(1 − e^{−2γT}) and
// correlation ρ (the paper's linear construction would not give correlation ρ), flattened
// pair by pair.
func BivariateOrnsteinUhlenbeck() *BivariateOUTask {
	return &BivariateOUTask{&base{
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
	}}
}

// bouStats are the sufficient statistics of the bivariate OU data: the number of pairs and
// the sums of y₁, y₂, y₁², y₂² and y₁y₂.
type bouStats struct{ n, s1, s2, s11, s22, s12 float64 }

func newBOUStats(x []float64) bouStats {
	var st bouStats
	for i := 0; i+1 < len(x); i += 2 {
		a, b := x[i], x[i+1]
		st.n++
		st.s1 += a
		st.s2 += b
		st.s11 += a * a
		st.s22 += b * b
		st.s12 += a * b
	}
	return st
}

// ouDecay is e^{−γT} and ouVarFactor (1 − e^{−2γT})/γ: X_T has mean μ(1 − a) + x₀a and
// variance D·c.
var (
	ouDecay     = math.Exp(-ouGamma * ouT)
	ouVarFactor = (1 - math.Exp(-2*ouGamma*ouT)) / ouGamma
)

// logLik is log p(x | μ, D, ρ) from the sufficient statistics, with its gradient in (μ, D, ρ)
// when grad is not nil. With m = μ(1 − a) + 5a, s² = Dc, r = 1 − ρ² and
// Q = S₁₁ − 2ρS₁₂ + S₂₂ (centred at m):
//
//	ℓ = −n log 2π − n log s² − (n/2) log r − Q/(2s²r),
//	∂ℓ/∂μ = (1 − a)(1 − ρ)(Σy₁ + Σy₂ − 2nm)/(s²r),
//	∂ℓ/∂D = −n/D + Q/(2D s² r),
//	∂ℓ/∂ρ = nρ/r + S₁₂/(s²r) − ρQ/(s²r²).
func (st bouStats) logLik(mu, d, rho float64, grad []float64) float64 {
	m := mu*(1-ouDecay) + 5*ouDecay
	s2 := d * ouVarFactor
	r := 1 - rho*rho
	n := st.n
	c11 := st.s11 - 2*m*st.s1 + n*m*m
	c22 := st.s22 - 2*m*st.s2 + n*m*m
	c12 := st.s12 - m*(st.s1+st.s2) + n*m*m
	q := c11 - 2*rho*c12 + c22
	ll := -n*math.Log(2*math.Pi) - n*math.Log(s2) - 0.5*n*math.Log(r) - q/(2*s2*r)
	if grad != nil {
		grad[0] = (1 - ouDecay) * (1 - rho) * (st.s1 + st.s2 - 2*n*m) / (s2 * r)
		grad[1] = -n/d + q/(2*d*s2*r)
		grad[2] = n*rho/r + c12/(s2*r) - rho*q/(s2*r*r)
	}
	return ll
}

// LogLikelihood is log p(x | θ) for θ = (μ, D, ρ): 100 independent bivariate normal pairs (see
// BivariateOrnsteinUhlenbeck), computed from their sufficient statistics. It panics unless θ
// has 3 entries and x 200.
func (t *BivariateOUTask) LogLikelihood(theta, x []float64) float64 {
	if len(theta) != 3 || len(x) != 2*ouN {
		panic(fmt.Sprintf("task bivariate_ornstein_uhlenbeck: LogLikelihood of θ with %d entries and x with %d, want 3 and %d", len(theta), len(x), 2*ouN))
	}
	if !(theta[1] > 0) || !(theta[2] > -1 && theta[2] < 1) {
		return math.Inf(-1)
	}
	return newBOUStats(x).logLik(theta[0], theta[1], theta[2], nil)
}

// logJointU is log p(θ(u)) + log p(x | θ(u)) + log|det ∂θ/∂u| in u = (μ, log D, logit ρ) with
// its gradient: the prior adds −μ²/200 and −D/10, the Jacobian u₂ + log ρ + log(1 − ρ).
func (st bouStats) logJointU(u, grad []float64) float64 {
	mu, d := u[0], math.Exp(u[1])
	rho := 1 / (1 + math.Exp(-u[2]))
	var g [3]float64
	ll := st.logLik(mu, d, rho, g[:])
	lj := ll - mu*mu/200 - d/10 + u[1] + math.Log(rho) + math.Log1p(-rho)
	if grad != nil {
		grad[0] = g[0] - mu/100
		grad[1] = d*g[1] - d/10 + 1
		grad[2] = rho*(1-rho)*g[2] + 1 - 2*rho
	}
	return lj
}

// MeanField is the mean-field variational approximation of the posterior of (μ, D, ρ) given x,
// the approximate posterior of Bon et al.'s bivariate OU example (ADVI in Turing.jl): a
// product of Gaussians in u = (μ, log D, logit ρ) that maximizes the evidence lower bound. It
// cannot represent the posterior correlation of ρ and D, which score calibration restores. The
// optimum is found by BFGS on a Gauss–Hermite form of the bound (see MeanFieldFit), not by
// stochastic gradients. It returns an error unless x has 200 finite values with some spread.
func (t *BivariateOUTask) MeanField(x []float64) (*MeanFieldFit, error) {
	if err := checkObs(t.name, x, 2*ouN); err != nil {
		return nil, err
	}
	st := newBOUStats(x)
	// Start at moment estimates: m̂ the mean, ŝ² the variance, ρ̂ the correlation.
	m := (st.s1 + st.s2) / (2 * st.n)
	v := ((st.s11+st.s22)/(2*st.n) - m*m)
	if !(v > 0) {
		return nil, errors.New("task bivariate_ornstein_uhlenbeck: the observations have no spread; the mean-field fit needs a positive sample variance")
	}
	cov := st.s12/st.n - (st.s1/st.n)*(st.s2/st.n)
	rho := math.Min(math.Max(cov/v, 0.02), 0.98)
	init := []float64{(m - 5*ouDecay) / (1 - ouDecay), math.Log(v / ouVarFactor), math.Log(rho / (1 - rho))}
	sd := []float64{0.3, 0.15, 0.2}
	fit, err := fitMeanField(st.logJointU, init, sd, dist.Unconstrain(t.Prior()))
	if err != nil {
		return nil, fmt.Errorf("task bivariate_ornstein_uhlenbeck: %w", err)
	}
	return fit, nil
}

// MustMeanField is MeanField for notebook cells: it panics with the error.
func (t *BivariateOUTask) MustMeanField(x []float64) *MeanFieldFit {
	f, err := t.MeanField(x)
	if err != nil {
		panic(err)
	}
	return f
}

// MeanFieldRefit is the approximate method as Bayesian score calibration calls it (a
// calib.Refit): for a dataset x, n draws of its mean-field fit in the unconstrained
// coordinates u = (μ, log D, logit ρ), where the paper calibrates; map them back with
// dist.Unconstrain(t.Prior()).Forward.
func (t *BivariateOUTask) MeanFieldRefit() func(rng *rand.Rand, x []float64, n int) (*mat.Dense, error) {
	return func(rng *rand.Rand, x []float64, n int) (*mat.Dense, error) {
		fit, err := t.MeanField(x)
		if err != nil {
			return nil, err
		}
		return fit.SampleUnconstrained(rng, n), nil
	}
}

// MustExactPosterior is ExactPosterior for notebook cells: it panics with its error.
func (t *ConjugateGaussianTask) MustExactPosterior(x []float64) dist.Distribution {
	return safe.Must(t.ExactPosterior(x))
}
