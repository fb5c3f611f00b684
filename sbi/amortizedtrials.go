package sbi

import (
	"errors"
	"fmt"

	"github.com/gosbi/gosbi/internal/text"
	"github.com/gosbi/gosbi/sbi/dist"
	"gonum.org/v1/gonum/mat"
)

// trialsBlock bounds the trials that AmortizedTrials.LogProbPairs pairs with their θ in one
// block (at least one observation), so that its memory does not grow with the test pairs.
const trialsBlock = 1 << 16

// AmortizedTrials serves observations of N i.i.d. trials, one per row of x, from a likelihood
// or ratio estimator trained on single trials (NLE, MNLE, NRE: their Trials method), so that
// the diagnostics and calibration methods, which take an Amortized and one observation per
// row, apply to it: SBC, expected coverage, TARP, predictive checks.
//
// A row of x holds the N trials side by side: for trials of d values (the width the
// estimator was trained on), trial t is x[t·d : (t+1)·d], the layout of DeepSetEmbedding with a
// fixed number of trials and the rows of the N×d matrix PosteriorTrials takes, read in row
// order. A row is N·d values exactly. Posterior(x) is the estimator's PosteriorTrials of those N
// rows, p(θ)·Πₜ q(xₜ | θ) (a ratio estimator's r̂(θ, xₜ) in place of q), and LogProbPairs is
// log p(θ) + Σₜ log q(xₜ | θ), the value of Posterior(x).LogProb: unnormalized, off by a
// constant of each observation (it lacks −log p(x₁ … x_N)), as the Amortized doc allows.
//
// Every observation holds exactly N trials. A varying number of trials per observation (rows
// padded with NaN, as sbi pads) is not supported: a posterior at a row holding NaN or ±Inf
// refuses to sample with an error that says so, LogProbPairs is −Inf there, and diagnostics
// drop such rows with a count. Group the observations by their number of trials and check
// each group with its own Trials(n), or train on sets (DeepSetEmbedding with MaxTrials).
type AmortizedTrials struct {
	core *estimator
	of   Estimator
	n    int
	s    SamplerConfig
	post func(xs *mat.Dense, s SamplerConfig) *RatioPosterior
	// term is the estimator's per-trial log-likelihood or log-ratio of row pairs, −Inf or NaN
	// where a trial cannot be evaluated.
	term func(theta, x *mat.Dense) []float64
}

// Trials returns the NLE as an Amortized over observations of n i.i.d. trials, one per row of
// x with the trials side by side (see AmortizedTrials), sampled as Config().Sampler says. It
// panics when n < 1.
func (e *NLE) Trials(n int) *AmortizedTrials { return e.TrialsWith(n, e.cfg.Sampler) }

// TrialsWith is Trials with a given sampler configuration.
func (e *NLE) TrialsWith(n int, s SamplerConfig) *AmortizedTrials {
	return newAmortizedTrials(&e.estimator, e, n, s, e.PosteriorTrialsWith, e.LogLikelihood)
}

// Trials returns the MNLE as an Amortized over observations of n i.i.d. trials, one per row of
// x with the trials side by side (see AmortizedTrials), sampled as Config().Sampler says. It
// panics when n < 1.
func (e *MNLE) Trials(n int) *AmortizedTrials { return e.TrialsWith(n, e.cfg.Sampler) }

// TrialsWith is Trials with a given sampler configuration.
func (e *MNLE) TrialsWith(n int, s SamplerConfig) *AmortizedTrials {
	return newAmortizedTrials(&e.estimator, e, n, s, e.PosteriorTrialsWith, e.LogLikelihood)
}

// Trials returns the NRE as an Amortized over observations of n i.i.d. trials, one per row of
// x with the trials side by side (see AmortizedTrials), sampled as Config().Sampler says; its
// LogProbPairs adds the trials' log-ratios LogRatio. It panics when n < 1.
func (e *NRE) Trials(n int) *AmortizedTrials { return e.TrialsWith(n, e.cfg.Sampler) }

// TrialsWith is Trials with a given sampler configuration.
func (e *NRE) TrialsWith(n int, s SamplerConfig) *AmortizedTrials {
	return newAmortizedTrials(&e.estimator, e, n, s, e.PosteriorTrialsWith, e.LogRatio)
}

func newAmortizedTrials(core *estimator, of Estimator, n int, s SamplerConfig,
	post func(*mat.Dense, SamplerConfig) *RatioPosterior, term func(theta, x *mat.Dense) []float64) *AmortizedTrials {
	if n < 1 {
		panic(fmt.Sprintf("sbi: %s.Trials: n = %d, expected at least 1 trial per observation", core.name, n))
	}
	return &AmortizedTrials{core: core, of: of, n: n, s: s, post: post, term: term}
}

// Trials is the number of trials of every observation, N.
func (a *AmortizedTrials) Trials() int { return a.n }

// Estimator is the estimator of single trials that a serves.
func (a *AmortizedTrials) Estimator() Estimator { return a.of }

// Prior is the estimator's prior.
func (a *AmortizedTrials) Prior() dist.Distribution { return a.core.prior }

// Posterior returns p̂(θ | x₁ … x_N), the estimator's PosteriorTrials of the N trials laid side
// by side in x. It panics when the estimator is trained and x is not N trials of the width it
// was trained on; the posterior refuses to sample when the estimator is untrained or x holds
// NaN or ±Inf.
func (a *AmortizedTrials) Posterior(x []float64) Posterior { return a.PosteriorAt(x) }

// PosteriorAt is Posterior with the concrete type, which also reports the sampling method and
// the health of MCMC chains.
func (a *AmortizedTrials) PosteriorAt(x []float64) *RatioPosterior {
	if !a.core.trained {
		return a.post(nil, a.s)
	}
	xs := a.reshape("Posterior", x)
	p := a.post(xs, a.s)
	if errors.Is(p.err, ErrNonFinite) {
		p.err = fmt.Errorf("%w; every observation here holds exactly %d trials: a varying number of trials padded with NaN is not supported (group the observations by their number of trials)", p.err, a.n)
	}
	return p
}

// reshape returns the N trials of x, one per row, panicking with a message that says the layout
// when x's length is not N trials of the trained width.
func (a *AmortizedTrials) reshape(method string, x []float64) *mat.Dense {
	d := a.core.xDim
	if len(x) != satMul(a.n, d) {
		panic(fmt.Sprintf("sbi: %s trials.%s: %s", a.core.name, method, a.widthMismatch(len(x))))
	}
	return mat.NewDense(a.n, d, append([]float64(nil), x...))
}

// widthMismatch says why an observation of w values is not N trials of the trained width d.
func (a *AmortizedTrials) widthMismatch(w int) string {
	d := a.core.xDim
	s := fmt.Sprintf("x has %d values, expected %d: %s of %s side by side (trial t is x[t·%d : (t+1)·%d])",
		w, satMul(a.n, d), text.Count(a.n, "trial"), text.Count(d, "value"), d, d)
	switch {
	case w%d != 0:
		s += fmt.Sprintf("; %d is not a whole number of trials", w)
	case w > 0:
		s += fmt.Sprintf("; it holds %s: use Trials(%d)", text.Count(w/d, "trial"), w/d)
	}
	return s
}

// LogProbPairs returns log p(θᵢ) + Σₜ log q(xᵢₜ | θᵢ) for every row pair, xᵢₜ the trials of row
// i of x (a ratio estimator's log r̂(θᵢ, xᵢₜ) in place of log q): the value of
// Posterior(xᵢ).LogProb at θᵢ, unnormalized, −Inf outside the prior's support and where a
// trial cannot be evaluated (NaN or ±Inf, or a value the estimator's own LogProbPairs refuses).
// It evaluates the pairs in blocks of at most 65,536 trials (or one observation), so that its
// memory does not grow with their number. It panics when the estimator is untrained or the
// shapes do not match.
func (a *AmortizedTrials) LogProbPairs(theta, x *mat.Dense) []float64 {
	a.core.mustTrained("Trials.LogProbPairs")
	m := a.checkPairs(theta, x)
	D, d := a.core.prior.Dim(), a.core.xDim
	out := a.core.prior.LogProb(theta)
	block := max(1, trialsBlock/a.n)
	for lo := 0; lo < m; lo += block {
		hi := min(m, lo+block)
		th := mat.NewDense((hi-lo)*a.n, D, nil)
		xs := mat.NewDense((hi-lo)*a.n, d, nil)
		for i := lo; i < hi; i++ {
			for t := 0; t < a.n; t++ {
				th.SetRow((i-lo)*a.n+t, theta.RawRowView(i))
			}
			copy(xs.RawMatrix().Data[(i-lo)*a.n*d:], x.RawRowView(i))
		}
		v := a.term(th, xs)
		for i := lo; i < hi; i++ {
			s := 0.0
			for _, w := range v[(i-lo)*a.n : (i-lo+1)*a.n] {
				s += w
			}
			out[i] = cleanLogProb(out[i]+s, a.core.prior, theta.RawRowView(i))
		}
	}
	return out
}

// checkPairs panics unless theta and x are paired rows of the prior's dimension and of N
// trials; it returns the number of pairs.
func (a *AmortizedTrials) checkPairs(theta, x *mat.Dense) int {
	if theta == nil || x == nil {
		panic(fmt.Sprintf("sbi: %s trials.LogProbPairs: theta or x is nil, expected one pair per row", a.core.name))
	}
	n, c := theta.Dims()
	nx, cx := x.Dims()
	switch {
	case c != a.core.prior.Dim() || n != nx:
		panic(fmt.Sprintf("sbi: %s trials.LogProbPairs: theta is %d×%d and x %d×%d, expected n×%d and n×%d", a.core.name, n, c, nx, cx, a.core.prior.Dim(), satMul(a.n, a.core.xDim)))
	case cx != satMul(a.n, a.core.xDim):
		panic(fmt.Sprintf("sbi: %s trials.LogProbPairs: %s", a.core.name, a.widthMismatch(cx)))
	}
	return n
}

// String says what a serves: the estimator, the number of trials and the layout of a row.
func (a *AmortizedTrials) String() string {
	row := "the trials side by side in each row of x"
	if a.core.trained {
		row = fmt.Sprintf("the trials side by side in rows of %d values", satMul(a.n, a.core.xDim))
	}
	return fmt.Sprintf("%s over observations of %s: %s", a.core.label, text.Count(a.n, "i.i.d. trial"), row)
}

// MIMEBundle shows the summary as HTML and text.
func (a *AmortizedTrials) MIMEBundle() map[string]any { return summaryBundle(a.core.label, a.String()) }

var _ Amortized = (*AmortizedTrials)(nil)
