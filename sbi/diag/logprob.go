package diag

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/internal/cancel"
	"github.com/gosbi/gosbi/sbi/internal/safe"
)

// LogDensity is anything with a batched log density, such as a prior distribution.
type LogDensity interface {
	LogProb(theta *mat.Dense) []float64
}

// LogProbResult is the expected log posterior density of the true parameters,
// E_{p(θ,x)}[log q(θ|x)] (Delaunoy et al. 2022, §5.4): higher is better, since it equals
// −E_x KL(p(θ|x) ‖ q(θ|x)) plus a constant that does not depend on q.
type LogProbResult struct {
	N      int
	Mean   float64 // mean of log q(θ*ᵢ|xᵢ)
	StdErr float64 // standard error of Mean
	// Prior is the mean of log p(θ*ᵢ) under the prior, the value of an estimator that learned
	// nothing; NaN when no prior was given.
	Prior float64
	// NonFinite counts the pairs where log q(θ*|x) = −Inf (left out of Mean).
	NonFinite int
	// Dropped counts the test pairs left out because θ or x held NaN or ±Inf.
	Dropped int
	// Unnormalized says why Mean is not the expected log posterior density, "" when it is:
	// the estimator's LogProbPairs leaves out a constant per observation (a likelihood
	// estimator's log p(θ) + log q(x | θ) lacks −log p(x); NRE-B's logits carry a free c(x)).
	// Mean is then the mean of those values, and String says the density is not measured.
	Unnormalized string
}

// ExpectedLogProb averages log q(θ*ᵢ|xᵢ) over the test pairs with est.LogProbPairs. prior may be
// nil; otherwise its mean log density at the true parameters is reported for reference.
//
// The average is a log posterior density only when LogProbPairs is normalized for every
// observation, as for NPE, FMPE, NRE-A and NRE-C (whose optimum is normalized) and their
// ensembles. For NLE and MNLE (log p(θ) + log q(x | θ), without −log p(x)) and NRE-B (off by
// a c(x) its loss leaves free) the result's Unnormalized says so and String reports no
// density: compare NLEs and MNLEs of the same test pairs with each other only, and NRE-B with
// nothing. Estimators of other packages are taken as normalized.
func ExpectedLogProb(est sbi.Amortized, prior LogDensity, theta, x *mat.Dense) (*LogProbResult, error) {
	return ExpectedLogProbContext(runenv.Context(), est, prior, theta, x)
}

// MustExpectedLogProb is ExpectedLogProb for notebook cells: it returns the result alone and panics
// with ExpectedLogProb's error.
func MustExpectedLogProb(est sbi.Amortized, prior LogDensity, theta, x *mat.Dense) *LogProbResult {
	return safe.Must(ExpectedLogProb(est, prior, theta, x))
}

// ExpectedLogProbContext is ExpectedLogProb stopped by ctx instead of the host's context
// (runenv.Context).
func ExpectedLogProbContext(ctx context.Context, est sbi.Amortized, prior LogDensity, theta, x *mat.Dense) (*LogProbResult, error) {
	theta, x, dropped, err := checkPairs("expected log density", est, theta, x)
	if err != nil {
		return nil, err
	}
	if err := cancel.Check(ctx, "expected log density"); err != nil {
		return nil, err
	}
	var lp []float64
	if err := safe.Call("diag: expected log density", func() error { lp = est.LogProbPairs(theta, x); return nil }); err != nil {
		return nil, err
	}
	if n, _ := theta.Dims(); len(lp) != n {
		return nil, fmt.Errorf("diag: expected log density: LogProbPairs of %d pairs returned %d values", n, len(lp))
	}
	r := &LogProbResult{Prior: math.NaN(), Dropped: dropped, Unnormalized: normalizationNote(est)}
	finite := make([]float64, 0, len(lp))
	for i, v := range lp {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 1):
			return nil, fmt.Errorf("diag: log density of test pair %d is %v; the estimator must return a finite number or −Inf", i, v)
		case math.IsInf(v, -1):
			r.NonFinite++
		default:
			finite = append(finite, v)
		}
	}
	r.N = len(finite)
	if r.N > 0 {
		var sd float64
		r.Mean, sd = stat.MeanStdDev(finite, nil)
		r.StdErr = sd / math.Sqrt(float64(r.N))
	} else {
		r.Mean = math.Inf(-1)
	}
	if prior != nil {
		r.Prior = stat.Mean(prior.LogProb(theta), nil)
	}
	return r, nil
}

// normalizationNote says why est's LogProbPairs is not a normalized log posterior density,
// "" when it is one (or est is not of package sbi).
func normalizationNote(est sbi.Amortized) string {
	const nreB = "NRE-B's log-densities are off by a constant c(x) that its loss leaves free, so their mean measures nothing; compare its coverage (HPD, SBC), or train with the NRE-A or NRE-C loss"
	switch e := est.(type) {
	case *sbi.NLE, *sbi.MNLE:
		return "a likelihood estimator's log p(θ) + log q(x | θ) lacks −log p(x): its mean compares likelihood estimators on the same test pairs, not posterior estimators or the prior"
	case *sbi.AmortizedTrials:
		if e.Trials() == 1 {
			return normalizationNote(e.Estimator())
		}
		return "an estimator of single trials adds the trials' log-likelihoods or log-ratios, log p(θ) + Σₜ log q(xₜ | θ), which lacks −log p(x₁ … x_N): its mean compares estimators on the same test pairs, not posterior estimators or the prior"
	case *sbi.NRE:
		if e.Config().Loss == sbi.NREB {
			return nreB
		}
	case *sbi.NREEnsemble:
		for _, m := range e.Members {
			if m.Config().Loss == sbi.NREB {
				return nreB
			}
		}
	}
	return ""
}

// String is a one-line summary.
func (r *LogProbResult) String() string {
	if r.Unnormalized != "" {
		s := fmt.Sprintf("expected log posterior density not measured: %s (mean log-density %.4f ± %.4f over %d pairs)", r.Unnormalized, r.Mean, r.StdErr, r.N)
		return s + r.leftOut()
	}
	s := fmt.Sprintf("expected log posterior density %.4f ± %.4f (%d pairs)", r.Mean, r.StdErr, r.N)
	if !math.IsNaN(r.Prior) {
		s += fmt.Sprintf(", prior %.4f", r.Prior)
	}
	return s + r.leftOut()
}

// leftOut lists the pairs left out of the mean, "" for none.
func (r *LogProbResult) leftOut() string {
	var s string
	if r.NonFinite > 0 {
		s += fmt.Sprintf(", %d pairs with zero density left out", r.NonFinite)
	}
	if r.Dropped > 0 {
		s += fmt.Sprintf(", %d pairs with NaN or infinite values left out", r.Dropped)
	}
	return s
}

// MIMEBundle shows the summary as HTML and text.
func (r *LogProbResult) MIMEBundle() map[string]any {
	return map[string]any{"text/html": "<div>" + r.String() + "</div>", "text/plain": r.String()}
}
