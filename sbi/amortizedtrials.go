package sbi

import (
	"errors"
	"fmt"
	"math"

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
// row, apply to it: SBC, expected coverage, TARP, predictive checks, conformal regions.
//
// A row of x holds the trials side by side: for trials of d values (the width the estimator was
// trained on), trial t is x[t·d : (t+1)·d], the layout of DeepSetEmbedding with a fixed number
// of trials and the rows of the N×d matrix PosteriorTrials takes, read in row order. A row is
// N·d values exactly, and holds from 1 to N trials: an observation of k < N trials is padded
// with N − k trials of NaN at its end, as sbi pads sets of a varying size. A trial whose values
// are all NaN is absent; one with NaN in some of its values only, and a present trial after an
// absent one, are errors that name the trial (Unpadded says which). Posterior(x) is the
// estimator's PosteriorTrials of the k trials present, p(θ)·Πₜ q(xₜ | θ) (a ratio estimator's
// r̂(θ, xₜ) in place of q), and LogProbPairs is log p(θ) + Σₜ log q(xₜ | θ) over the trials
// present, the value of Posterior(x).LogProb: unnormalized, off by a constant of each
// observation (it lacks −log p(x₁ … x_k)), as the Amortized doc allows. The trials are i.i.d.,
// so the number present carries no information about θ: an observation of k trials is read as
// if it had been simulated with k trials.
//
// A row that is all NaN holds no trial: a failed simulation, which the posterior refuses, whose
// LogProbPairs is −Inf, and which diagnostics drop with a count, as they drop a row whose trials
// present hold ±Inf. Diagnostics that read the values of x themselves (L-C2ST's classifier)
// refuse padded rows.
type AmortizedTrials struct {
	core *estimator // the estimator, or an ensemble's first member: its prior and trained width
	of   Estimator
	// name and label name the estimator in panics and in String; untrained returns why it
	// cannot be evaluated yet, nil once it is trained.
	name, label string
	untrained   func() error
	n           int
	s           SamplerConfig
	post        func(xs *mat.Dense, s SamplerConfig) *RatioPosterior
	// term is the estimator's per-trial log-likelihood or log-ratio of row pairs, −Inf or NaN
	// where a trial cannot be evaluated.
	term func(theta, x *mat.Dense) []float64
}

// Trials returns the NLE as an Amortized over observations of up to n i.i.d. trials, one per
// row of x with the trials side by side and NaN trials after them as padding (see
// AmortizedTrials), sampled as Config().Sampler says. It panics when n < 1.
func (e *NLE) Trials(n int) *AmortizedTrials { return e.TrialsWith(n, e.cfg.Sampler) }

// TrialsWith is Trials with a given sampler configuration.
func (e *NLE) TrialsWith(n int, s SamplerConfig) *AmortizedTrials {
	return newAmortizedTrials(&e.estimator, e, n, s, e.PosteriorTrialsWith, e.LogLikelihood)
}

// Trials returns the MNLE as an Amortized over observations of up to n i.i.d. trials, one per
// row of x with the trials side by side and NaN trials after them as padding (see
// AmortizedTrials), sampled as Config().Sampler says. It panics when n < 1.
func (e *MNLE) Trials(n int) *AmortizedTrials { return e.TrialsWith(n, e.cfg.Sampler) }

// TrialsWith is Trials with a given sampler configuration.
func (e *MNLE) TrialsWith(n int, s SamplerConfig) *AmortizedTrials {
	return newAmortizedTrials(&e.estimator, e, n, s, e.PosteriorTrialsWith, e.LogLikelihood)
}

// Trials returns the NRE as an Amortized over observations of up to n i.i.d. trials, one per
// row of x with the trials side by side and NaN trials after them as padding (see
// AmortizedTrials), sampled as Config().Sampler says; its LogProbPairs adds the trials'
// log-ratios LogRatio. It panics when n < 1.
func (e *NRE) Trials(n int) *AmortizedTrials { return e.TrialsWith(n, e.cfg.Sampler) }

// TrialsWith is Trials with a given sampler configuration.
func (e *NRE) TrialsWith(n int, s SamplerConfig) *AmortizedTrials {
	return newAmortizedTrials(&e.estimator, e, n, s, e.PosteriorTrialsWith, e.LogRatio)
}

func newAmortizedTrials(core *estimator, of Estimator, n int, s SamplerConfig,
	post func(*mat.Dense, SamplerConfig) *RatioPosterior, term func(theta, x *mat.Dense) []float64) *AmortizedTrials {
	untrained := func() error {
		if !core.trained {
			return ErrUntrained
		}
		return nil
	}
	return makeAmortizedTrials(core, core.name, core.label, untrained, of, n, s, post, term)
}

// makeAmortizedTrials returns the AmortizedTrials of an estimator or an ensemble, panicking when
// n < 1.
func makeAmortizedTrials(core *estimator, name, label string, untrained func() error, of Estimator, n int, s SamplerConfig,
	post func(*mat.Dense, SamplerConfig) *RatioPosterior, term func(theta, x *mat.Dense) []float64) *AmortizedTrials {
	if n < 1 {
		panic(fmt.Sprintf("sbi: %s.Trials: n = %d, expected at least 1 trial per observation", name, n))
	}
	return &AmortizedTrials{core: core, name: name, label: label, untrained: untrained, of: of, n: n, s: s, post: post, term: term}
}

// Trials is the most trials an observation holds, N: the width of a row of x is N trials.
func (a *AmortizedTrials) Trials() int { return a.n }

// Sampler is the sampler configuration of a's posteriors (that of Trials, or the one given to
// TrialsWith).
func (a *AmortizedTrials) Sampler() SamplerConfig { return a.s }

// Estimator is the estimator of single trials that a serves.
func (a *AmortizedTrials) Estimator() Estimator { return a.of }

// TrainingProposal is the estimator's TrainingProposal (see NPE.TrainingProposal): a model of
// single trials trained on Sequential's proposals is fitted near one observation, and so is
// its posterior of several trials.
func (a *AmortizedTrials) TrainingProposal() string { return TrainingProposalOf(a.of) }

// Prior is the estimator's prior.
func (a *AmortizedTrials) Prior() dist.Distribution { return a.core.prior }

// Posterior returns p̂(θ | x₁ … x_k), the estimator's PosteriorTrials of the k trials present
// in x, laid side by side and padded with NaN trials to N. It panics when the estimator is
// trained and x is not N trials of the width it was trained on; the posterior refuses to sample
// (with an error wrapping ErrNonFinite that names the trial) when x holds no trial, a trial
// with NaN in some of its values only, a trial after the padding, or ±Inf, and when the
// estimator is untrained.
func (a *AmortizedTrials) Posterior(x []float64) Posterior { return a.PosteriorAt(x) }

// PosteriorAt is Posterior with the concrete type, which also reports the sampling method and
// the health of MCMC chains.
func (a *AmortizedTrials) PosteriorAt(x []float64) *RatioPosterior {
	if a.untrained() != nil {
		return a.post(nil, a.s)
	}
	if len(x) != satMul(a.n, a.core.xDim) {
		panic(fmt.Sprintf("sbi: %s trials.Posterior: %s", a.name, a.widthMismatch(len(x))))
	}
	k, err := a.present(x)
	if err == nil && k == 0 {
		err = a.noTrial()
	}
	if err != nil {
		return newRatioPosterior(a.label+" trials", nil, a.core.prior, nil, fmt.Errorf("the observation: %w: %w", ErrNonFinite, err), a.s)
	}
	d := a.core.xDim
	return a.post(mat.NewDense(k, d, append([]float64(nil), x[:k*d]...)), a.s)
}

// present returns the number of trials present in x, a row of N trials of the trained width:
// those before its padding of whole NaN trials. It returns an error naming the trial when a
// trial holds NaN in some of its values only, or follows the padding.
func (a *AmortizedTrials) present(x []float64) (int, error) {
	d := a.core.xDim
	k := a.n // the first trial of the padding
	for t := 0; t < a.n; t++ {
		switch nan := countNaN(x[t*d : (t+1)*d]); {
		case nan == d:
			k = min(k, t)
		case nan > 0:
			return 0, fmt.Errorf("trial %d holds NaN in %d of its %d values, expected a trial of numbers or, as padding, all NaN", t, nan, d)
		case k < t:
			return 0, fmt.Errorf("trial %d follows trial %d, which is all NaN: padding goes after the trials present, at the end of the row", t, k)
		}
	}
	return k, nil
}

// noTrial is the error for an observation whose every trial is NaN.
func (a *AmortizedTrials) noTrial() error {
	return fmt.Errorf("every trial is NaN (a failed simulation), expected 1 to %d trials padded with NaN trials at the end", a.n)
}

// countNaN returns the number of NaN values of v.
func countNaN(v []float64) int {
	n := 0
	for _, f := range v {
		if math.IsNaN(f) {
			n++
		}
	}
	return n
}

// Unpadded returns the values of the trials present in the observation x, a row of N trials
// side by side: x itself when it holds N trials, its first k·d values (a slice of x) when it
// holds k trials and N − k trials of NaN padding, and an empty slice when every trial is NaN (a
// failed simulation, which a posterior refuses). It returns an error that says what is expected
// when x is not N trials of the trained width, a trial holds NaN in some of its values only, or
// a trial follows the padding, and one wrapping ErrUntrained when the estimator is untrained.
// Diagnostics (package diag) and the conformal methods (package calib) call it to keep padded
// observations, which they would otherwise drop as failed simulations.
func (a *AmortizedTrials) Unpadded(x []float64) ([]float64, error) {
	if err := a.untrained(); err != nil {
		return nil, fmt.Errorf("%s trials: %w", a.name, err)
	}
	if len(x) != satMul(a.n, a.core.xDim) {
		return nil, errors.New(a.widthMismatch(len(x)))
	}
	k, err := a.present(x)
	if err != nil {
		return nil, err
	}
	return x[:k*a.core.xDim], nil
}

// widthMismatch says why an observation of w values is not N trials of the trained width d.
func (a *AmortizedTrials) widthMismatch(w int) string {
	d := a.core.xDim
	s := fmt.Sprintf("x has %d values, expected %d: %s of %s side by side (trial t is x[t·%d : (t+1)·%d])",
		w, satMul(a.n, d), text.Count(a.n, "trial"), text.Count(d, "value"), d, d)
	switch {
	case w%d != 0:
		s += fmt.Sprintf("; %d is not a whole number of trials", w)
	case w > satMul(a.n, d):
		s += fmt.Sprintf("; it holds %s: use Trials(%d)", text.Count(w/d, "trial"), w/d)
	case w > 0:
		s += fmt.Sprintf("; it holds %s: use Trials(%d), or pad it with NaN trials to %d", text.Count(w/d, "trial"), w/d, a.n)
	}
	return s
}

// LogProbPairs returns log p(θᵢ) + Σₜ log q(xᵢₜ | θᵢ) for every row pair, xᵢₜ the trials present
// in row i of x (a ratio estimator's log r̂(θᵢ, xᵢₜ) in place of log q): the value of
// Posterior(xᵢ).LogProb at θᵢ, unnormalized, −Inf outside the prior's support, where every
// trial is NaN, and where a trial cannot be evaluated (±Inf, or a value the estimator's own
// LogProbPairs refuses). It evaluates the pairs in blocks of at most 65,536 trials (or one
// observation), so that its memory does not grow with their number. It panics when the
// estimator is untrained, the shapes do not match, or a row of x holds a trial with NaN in
// some of its values only or a trial after its padding (naming the row and the trial).
func (a *AmortizedTrials) LogProbPairs(theta, x *mat.Dense) []float64 {
	if err := a.untrained(); err != nil {
		panic(fmt.Errorf("sbi: %s.Trials.LogProbPairs: %w", a.name, err))
	}
	m := a.checkPairs(theta, x)
	count := make([]int, m)
	for i := range count {
		k, err := a.present(x.RawRowView(i))
		if err != nil {
			panic(fmt.Sprintf("sbi: %s trials.LogProbPairs: row %d of x: %v", a.name, i, err))
		}
		count[i] = k
	}
	out := a.core.prior.LogProb(theta)
	block := max(1, trialsBlock/a.n)
	for lo := 0; lo < m; lo += block {
		hi := min(m, lo+block)
		a.addTrials(out, theta, x, count, lo, hi)
	}
	return out
}

// addTrials adds to out[i], for the rows lo…hi−1, the sum of the terms of the count[i] trials
// present in row i of x paired with θᵢ, and makes it −Inf for a row without a trial.
func (a *AmortizedTrials) addTrials(out []float64, theta, x *mat.Dense, count []int, lo, hi int) {
	D, d := a.core.prior.Dim(), a.core.xDim
	total := 0
	for _, k := range count[lo:hi] {
		total += k
	}
	var v []float64
	if total > 0 {
		th, xs := mat.NewDense(total, D, nil), mat.NewDense(total, d, nil)
		r := 0
		for i := lo; i < hi; i++ {
			copy(xs.RawMatrix().Data[r*d:], x.RawRowView(i)[:count[i]*d])
			for t := 0; t < count[i]; t++ {
				th.SetRow(r, theta.RawRowView(i))
				r++
			}
		}
		v = a.term(th, xs)
	}
	r := 0
	for i := lo; i < hi; i++ {
		if count[i] == 0 {
			out[i] = math.Inf(-1)
			continue
		}
		s := 0.0
		for _, w := range v[r : r+count[i]] {
			s += w
		}
		r += count[i]
		out[i] = cleanLogProb(out[i]+s, a.core.prior, theta.RawRowView(i))
	}
}

// checkPairs panics unless theta and x are paired rows of the prior's dimension and of N
// trials; it returns the number of pairs.
func (a *AmortizedTrials) checkPairs(theta, x *mat.Dense) int {
	if theta == nil || x == nil {
		panic(fmt.Sprintf("sbi: %s trials.LogProbPairs: theta or x is nil, expected one pair per row", a.name))
	}
	n, c := theta.Dims()
	nx, cx := x.Dims()
	switch {
	case c != a.core.prior.Dim() || n != nx:
		panic(fmt.Sprintf("sbi: %s trials.LogProbPairs: theta is %d×%d and x %d×%d, expected n×%d and n×%d", a.name, n, c, nx, cx, a.core.prior.Dim(), satMul(a.n, a.core.xDim)))
	case cx != satMul(a.n, a.core.xDim):
		panic(fmt.Sprintf("sbi: %s trials.LogProbPairs: %s", a.name, a.widthMismatch(cx)))
	}
	return n
}

// String says what a serves: the estimator, the number of trials and the layout of a row.
func (a *AmortizedTrials) String() string {
	row := "the trials side by side in each row of x, NaN trials after them as padding"
	if a.untrained() == nil {
		row = fmt.Sprintf("the trials side by side in rows of %d values, NaN trials after them as padding", satMul(a.n, a.core.xDim))
	}
	return fmt.Sprintf("%s over observations of up to %s: %s", a.label, text.Count(a.n, "i.i.d. trial"), row)
}

// MIMEBundle shows the summary as HTML and text.
func (a *AmortizedTrials) MIMEBundle() map[string]any { return summaryBundle(a.label, a.String()) }

var _ Amortized = (*AmortizedTrials)(nil)

// Trials returns the ensemble as an Amortized over observations of up to n i.i.d. trials, one
// per row of x with the trials side by side and NaN trials after them as padding (see
// AmortizedTrials), sampled as its Sampler says; its LogProbPairs adds the trials' log-ratios
// LogRatio, each the log of the mean of the members' ratios of that trial (see
// PosteriorTrials). It panics when n < 1.
func (e *NREEnsemble) Trials(n int) *AmortizedTrials { return e.TrialsWith(n, e.Sampler) }

// TrialsWith is Trials with a given sampler configuration.
func (e *NREEnsemble) TrialsWith(n int, s SamplerConfig) *AmortizedTrials {
	return makeAmortizedTrials(&e.Members[0].estimator, "NREEnsemble", e.label(), e.untrained, e, n, s, e.PosteriorTrialsWith, e.LogRatio)
}

// trialsHint says, for an observation of w values given to the Posterior of an estimator
// trained on single trials of d values, that it holds w/d trials and which calls take them;
// "" when w is no whole number of trials, or one trial or none.
func trialsHint(name string, w, d int) string {
	if d <= 0 || w <= d || w%d != 0 {
		return ""
	}
	k := w / d
	return fmt.Sprintf("; it holds %s of %s: for i.i.d. trials give them to %s.PosteriorTrials as the rows of a %d×%d matrix (mat.NewDense(%d, %d, x)), and to diagnostics as %s.Trials(%d)",
		text.Count(k, "trial"), text.Count(d, "value"), name, k, d, k, d, name, k)
}
