package sbi

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/dist"
)

// Posterior is a distribution over parameters, usually an estimator's posterior for one
// observation. Batches of parameters are *mat.Dense with one row per draw.
type Posterior interface {
	// Dim is the number of parameters.
	Dim() int
	// Sample draws n parameter vectors. It is a shorthand of the package's naming rule: when the
	// posterior cannot be sampled (an untrained estimator, low acceptance, an interrupt) it
	// panics with an error that says what to do; the posteriors of this package return that
	// error from SampleContext, a method of their concrete types, which each estimator's
	// PosteriorAt returns (npe.PosteriorAt(x).SampleContext(ctx, rng, n)); this interface,
	// which Posterior returns, does not have it. Those posteriors draw at most 2²⁶ values
	// (n·Dim) in one call and refuse more before they allocate them: draw more in several
	// calls.
	Sample(rng *rand.Rand, n int) *mat.Dense
	// LogProb is the log density of each row of theta (−Inf outside the support, never NaN).
	// For the posteriors of ratio and likelihood estimators (NRE, NLE, MNLE: RatioPosterior)
	// it is known only up to a constant of the observation: compare its values within one
	// posterior (HPD regions, ranks), and normalize it before reading it as a density
	// (integrating over a grid, calib's conformal methods without Normalized).
	LogProb(theta *mat.Dense) []float64
}

// Amortized is an estimator q(θ | x) that serves any observation: what diagnostics and
// calibration methods need of NPE, NRE, ensembles and user-made posteriors.
type Amortized interface {
	// Posterior is q(· | x) for one observation x.
	Posterior(x []float64) Posterior
	// LogProbPairs is log q(θᵢ | xᵢ) for every row i of theta and x, evaluated in parallel;
	// for ratio and likelihood estimators up to a constant of each xᵢ, as Posterior's LogProb
	// (diag.ExpectedLogProb says which of its results are not log posterior densities).
	LogProbPairs(theta, x *mat.Dense) []float64
}

// Estimator is the vocabulary every estimator shares: NPE, NRE, NLE, MNLE, FMPE, NPEEnsemble
// and NREEnsemble implement it (asserted at compile time; a test calls every method of NPE,
// NRE, FMPE and the ensembles), and an estimator added to the library must implement it too,
// so that notebooks, diagnostics, studies and the conformance suite treat every estimator
// alike.
//
// The methods follow the package's naming rule (plain names return errors, Must forms for
// cells, Context forms for services). Beside them every estimator offers, with its own
// concrete types: a constructor NewX(prior, XConfig) (an untrained estimator; configuration
// errors come from Train), PosteriorAt(x) returning its concrete posterior (which reports what
// the interface cannot: acceptance, sampler, ESS), Config() where it has one, and loaders
// LoadX(r, prior) and LoadXFile(path, prior) with MustLoadXFile.
type Estimator interface {
	// Posterior and LogProbPairs serve diagnostics and calibration (Amortized). Both panic on an
	// untrained estimator (check Trained) and on shapes that do not match.
	Amortized

	// Prior is the prior the estimator was built for.
	Prior() dist.Distribution
	// Trained reports whether the estimator has trained weights: a training finished, or one
	// stopped by an interrupt or an error (a regularizer's) that completed an epoch, or a load.
	Trained() bool

	// Train fits the estimator to the pairs (θᵢ, xᵢ), one per row, stopped by the host's context
	// (runenv.Context); an interrupted training keeps its best epoch among those that ended
	// before the interrupt (an epoch the interrupt reached is not scored) and says so in its
	// result and its error (which wraps context.Canceled); one stopped by a regularizer's error keeps
	// its best epoch too, and its error (which wraps the regularizer's) says so. Non-finite
	// pairs are dropped with a count and a warning, or refused with TrainConfig.RefuseNonFinite.
	Train(theta, x *mat.Dense, cfg TrainConfig) (*TrainResult, error)
	// TrainContext is Train stopped by ctx alone.
	TrainContext(ctx context.Context, theta, x *mat.Dense, cfg TrainConfig) (*TrainResult, error)
	// MustTrain is Train for notebook cells: it panics with Train's error.
	MustTrain(theta, x *mat.Dense, cfg TrainConfig) *TrainResult

	// Save writes the trained estimator to w; it returns an error wrapping ErrUntrained for an
	// untrained one. SaveFile writes a file atomically; MustSaveFile panics with its error.
	Save(w io.Writer) error
	SaveFile(path string) error
	MustSaveFile(path string)

	// String is a one-line summary (kind, size, dimensions, trained or not); MIMEBundle shows
	// it in a notebook.
	String() string
	MIMEBundle() map[string]any
}

// maxSampleValues bounds the values, n·dim, that one call of a sampler of this package returns:
// 2²⁶ (512 MiB), the bound of importance sampling's proposals.
const maxSampleValues = 1 << 26

// checkSampleSize returns an error, whose message starts with what, unless 1 ≤ n and n·dim ≤
// maxSampleValues: a sampler calls it before it allocates its n draws.
func checkSampleSize(what string, n, dim int) error {
	if n < 1 {
		return fmt.Errorf("%s: n = %d, expected at least 1 sample", what, n)
	}
	if v := satMul(n, dim); v > maxSampleValues {
		return fmt.Errorf("%s: n = %d samples of %d parameters are more than the %d values (512 MiB) one call may return: draw them in several calls of at most %d samples",
			what, n, dim, maxSampleValues, maxSampleValues/dim)
	}
	return nil
}
