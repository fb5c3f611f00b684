package task

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/dist"
)

// MixedTask is the toy model of mixed data (a continuous and a discrete column) of Python
// sbi's MNLE tutorial and tests; it has an exact posterior for any number of trials.
type MixedTask struct{ *base }

// The shape of the inverse-gamma reaction times and the parameters of the prior.
const (
	mixedShape     = 2.0 // α of τ ~ InverseGamma(α, rate β)
	mixedBetaShape = 1.0 // β ~ Gamma(1, rate 0.5)
	mixedBetaRate  = 0.5
	mixedRhoA      = 2.0 // ρ ~ Beta(2, 2)
	mixedRhoB      = 2.0
)

// Mixed is sbi's "mixed" toy simulator of a decision-making experiment: θ = (β, ρ) with
// β ~ Gamma(1, rate 0.5) and ρ ~ Beta(2, 2); one trial x = (τ, c) holds a reaction time
// τ ~ InverseGamma(2, rate β) (τ = β/G with G ~ Gamma(2, 1)) and a choice c ~ Bernoulli(ρ),
// independent given θ: the continuous column first, the discrete one last, as an MNLE expects.
// Its posterior is conjugate (ExactPosterior, ExactPosteriorTrials). It has no stored
// observations.
func Mixed() *MixedTask {
	return &MixedTask{&base{
		name: "mixed",
		prior: dist.NewIndependent(dist.NewGamma([]float64{mixedBetaShape}, []float64{mixedBetaRate}),
			dist.NewBeta([]float64{mixedRhoA}, []float64{mixedRhoB})),
		paramLabels: []string{"β", "ρ"}, dataDim: 2,
		row: func(rng *rand.Rand, theta, x []float64) {
			x[0] = theta[0] / dist.StdGamma(rng, mixedShape)
			x[1] = 0
			if rng.Float64() < theta[1] {
				x[1] = 1
			}
		},
	}}
}

// ExactPosterior is the posterior of one trial x = (τ, c): ExactPosteriorTrials of one row.
func (t *MixedTask) ExactPosterior(x []float64) (dist.Distribution, error) {
	if err := checkObs(t.name, x, 2); err != nil {
		return nil, err
	}
	return t.ExactPosteriorTrials(mat.NewDense(1, 2, append([]float64(nil), x...)))
}

// ExactPosteriorTrials is the posterior of T i.i.d. trials (τₜ, cₜ), one per row of xs: by
// conjugacy, independent
//
//	β ~ Gamma(1 + 2T, rate 0.5 + Σₜ 1/τₜ),   ρ ~ Beta(2 + Σₜ cₜ, 2 + T − Σₜ cₜ).
//
// It returns an error unless every τₜ is positive and finite and every cₜ is 0 or 1.
func (t *MixedTask) ExactPosteriorTrials(xs *mat.Dense) (dist.Distribution, error) {
	T, c := xs.Dims()
	if c != 2 || T < 1 {
		return nil, fmt.Errorf("task mixed: ExactPosteriorTrials: xs is %d×%d, expected one trial (τ, c) per row", T, c)
	}
	var invTau, ones float64
	for i := 0; i < T; i++ {
		tau, choice := xs.At(i, 0), xs.At(i, 1)
		if !(tau > 0) || math.IsInf(tau, 1) || (choice != 0 && choice != 1) {
			return nil, fmt.Errorf("task mixed: ExactPosteriorTrials: trial %d is (%v, %v), expected a positive reaction time and a choice of 0 or 1", i, tau, choice)
		}
		invTau += 1 / tau
		ones += choice
	}
	n := float64(T)
	return dist.NewIndependent(
		dist.NewGamma([]float64{mixedBetaShape + mixedShape*n}, []float64{mixedBetaRate + invTau}),
		dist.NewBeta([]float64{mixedRhoA + ones}, []float64{mixedRhoB + n - ones}),
	), nil
}
