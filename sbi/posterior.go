package sbi

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Posterior is a distribution over parameters, usually an estimator's posterior for one
// observation. Batches of parameters are *mat.Dense with one row per draw.
type Posterior interface {
	// Dim is the number of parameters.
	Dim() int
	// Sample draws n parameter vectors. It is a shorthand of the package's naming rule: when the
	// posterior cannot be sampled (an untrained estimator, low acceptance, an interrupt) it
	// panics with an error that says what to do; the posteriors of this package return that
	// error from SampleContext.
	Sample(rng *rand.Rand, n int) *mat.Dense
	// LogProb is the log density of each row of theta (−Inf outside the support, never NaN).
	LogProb(theta *mat.Dense) []float64
}

// Amortized is an estimator q(θ | x) that serves any observation: what diagnostics and
// calibration methods need of NPE, NRE, ensembles and user-made posteriors.
type Amortized interface {
	// Posterior is q(· | x) for one observation x.
	Posterior(x []float64) Posterior
	// LogProbPairs is log q(θᵢ | xᵢ) for every row i of theta and x, evaluated in parallel.
	LogProbPairs(theta, x *mat.Dense) []float64
}
