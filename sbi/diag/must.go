package diag

import (
	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
)

// The forms of the local diagnostics for notebook cells: each panics with the error of the
// function it calls, which a cell reports as one error.

// MustLocalC2ST is LocalC2ST for notebook cells: it panics with the error.
func MustLocalC2ST(est sbi.Amortized, theta, x *mat.Dense, xo []float64, cfg LC2STConfig) *LC2STResult {
	return must(LocalC2ST(est, theta, x, xo, cfg))
}

// MustNewLC2ST is NewLC2ST for notebook cells: it panics with the error.
func MustNewLC2ST(est sbi.Amortized, theta, x *mat.Dense, cfg LC2STConfig) *LC2ST {
	return must(NewLC2ST(est, theta, x, cfg))
}

// MustTest is Test for notebook cells: it panics with the error.
func (l *LC2ST) MustTest(xo []float64) *LC2STResult { return must(l.Test(xo)) }

// MustMisspecification is Misspecification for notebook cells: it panics with the error.
func MustMisspecification(est sbi.Amortized, x *mat.Dense, xo []float64, cfg MisspecConfig) *MisspecResult {
	return must(Misspecification(est, x, xo, cfg))
}

// MustPredictiveCheck is PredictiveCheck for notebook cells: it panics with the error.
func MustPredictiveCheck(src Sampler, sim sbi.Simulator, xo []float64, cfg PredictiveConfig) *PredictiveResult {
	return must(PredictiveCheck(src, sim, xo, cfg))
}

// MustPredictiveCheckFunc is PredictiveCheckFunc for notebook cells: it panics with the error.
func MustPredictiveCheckFunc(src Sampler, f sbi.SimFunc, xo []float64, cfg PredictiveConfig) *PredictiveResult {
	return must(PredictiveCheckFunc(src, f, xo, cfg))
}

// MustSBCECDF is SBCECDF for notebook cells: it panics with the error.
func MustSBCECDF(r *SBCResult, conf float64) *ECDFResult { return must(SBCECDF(r, conf)) }

// MustRecovery is Recovery for notebook cells: it panics with the error.
func MustRecovery(est sbi.Amortized, theta, x *mat.Dense, cfg RecoveryConfig) *RecoveryResult {
	return must(Recovery(est, theta, x, cfg))
}

// MustMCMCHealth is MCMCHealth for notebook cells: it panics with the error.
func MustMCMCHealth(sampler string, chains [][][]float64) *sbi.MCMCHealth {
	return must(MCMCHealth(sampler, chains))
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
