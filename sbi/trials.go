package sbi

import (
	"fmt"

	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// Posteriors of many i.i.d. trials. An observation of T independent trials x₁ … x_T of one
// parameter has the likelihood Πₜ p(xₜ | θ), so
//
//	log p(θ | x₁ … x_T) = log p(θ) + Σₜ log p(xₜ | θ) + const,
//
// and a likelihood estimator trained on single trials serves any T by adding its
// log-likelihoods. A ratio estimator does the same with its log-ratios, since
// r(θ, xₜ) = p(xₜ | θ)/p(xₜ) and the Πₜ p(xₜ) is a constant of θ. (A posterior estimator
// cannot: its q(θ | x) of one trial holds the prior once per trial.)

// PosteriorTrials returns p̂(θ | x₁ … x_T) ∝ p(θ)·Πₜ q(xₜ | θ) for the trials xₜ, the rows of
// xs, each a simulation of the width the NLE was trained on (single trials); it is sampled as
// Config().Sampler says and its LogProb is unnormalized. A posterior of one trial is
// Posterior(x). It panics when xs has the wrong width or no rows; the posterior refuses to
// sample (an error from SampleContext, a panic from Sample) when the NLE is untrained or a trial
// holds NaN or ±Inf.
func (e *NLE) PosteriorTrials(xs *mat.Dense) *RatioPosterior {
	return e.PosteriorTrialsWith(xs, e.cfg.Sampler)
}

// PosteriorTrialsWith is PosteriorTrials with a given sampler configuration.
func (e *NLE) PosteriorTrialsWith(xs *mat.Dense, s SamplerConfig) *RatioPosterior {
	if !e.trained {
		return newRatioPosterior(e.label+" trials", nil, e.prior, nil, ErrUntrained, s).ofTrials(xs)
	}
	checkTrials("NLE.PosteriorTrials", xs, e.xDim)
	ll, err := e.likelihoodAt(mat.DenseCopyOf(xs))
	return newRatioPosterior(e.label+" trials", nil, e.prior, ll, err, s).ofTrials(xs)
}

// PosteriorTrials returns p̂(θ | x₁ … x_T) ∝ p(θ)·Πₜ r̂(θ, xₜ) for the trials xₜ, the rows of xs,
// each of the width the NRE was trained on (single trials), with the rules of
// NLE.PosteriorTrials; the posterior also refuses to sample when a trial is not an observation
// the embedding's InputLayout can read.
func (e *NRE) PosteriorTrials(xs *mat.Dense) *RatioPosterior {
	return e.PosteriorTrialsWith(xs, e.cfg.Sampler)
}

// PosteriorTrialsWith is PosteriorTrials with a given sampler configuration.
func (e *NRE) PosteriorTrialsWith(xs *mat.Dense, s SamplerConfig) *RatioPosterior {
	if !e.trained {
		return newRatioPosterior(e.label+" trials", nil, e.prior, nil, ErrUntrained, s).ofTrials(xs)
	}
	checkTrials("NRE.PosteriorTrials", xs, e.xDim)
	lr, err := e.ratioTrials(mat.DenseCopyOf(xs))
	if err == nil {
		e.warnUnseenTrials(e.label+" trials posterior", xs)
	}
	return newRatioPosterior(e.label+" trials", nil, e.prior, lr, err, s).ofTrials(xs)
}

// ratioTrials returns θ ↦ Σₜ log r̂(θ, xₜ) over the rows of xs, their contexts computed once.
func (e *NRE) ratioTrials(xs *mat.Dense) (func(theta *mat.Dense) []float64, error) {
	if err := checkFiniteTrials(xs); err != nil {
		return nil, err
	}
	if err := e.checkReadableTrials(xs); err != nil {
		return nil, err
	}
	T, _ := xs.Dims()
	tp := nn.NewTape()
	tp.NoGrad = true
	ctx := e.context(tp, xs).Dense()
	D := e.prior.Dim()
	return func(theta *mat.Dense) []float64 {
		n, c := theta.Dims()
		if c != D {
			panic(fmt.Sprintf("sbi: NRE posterior: theta has %d columns, expected %d", c, D))
		}
		return sumOverTrials(n, T, func(tp *nn.Tape, lo, hi int) []float64 {
			th := standardizedConst(tp, e.zt, theta.Slice(lo, hi, 0, D).(*mat.Dense))
			return e.net.Forward(tp, tp.Concat(tp.RepeatRows(th, T), tiledRows(tp, ctx, hi-lo))).Data
		})
	}, nil
}

// checkTrials panics unless xs holds at least one trial of width values.
func checkTrials(what string, xs *mat.Dense, width int) {
	if xs == nil {
		panic(fmt.Sprintf("sbi: %s: xs is nil, expected one trial per row", what))
	}
	T, c := xs.Dims()
	if T < 1 || c != width {
		panic(fmt.Sprintf("sbi: %s: xs is %d×%d, expected one trial of %d values per row (the width the estimator was trained on)", what, T, c, width))
	}
}

// checkFiniteTrials returns an error naming the first trial of xs that holds NaN or ±Inf,
// wrapping ErrNonFinite.
func checkFiniteTrials(xs *mat.Dense) error {
	T, _ := xs.Dims()
	for t := 0; t < T; t++ {
		if !finite(xs.RawRowView(t)) {
			if T == 1 {
				return fmt.Errorf("the observation holds NaN or infinite values (%w): %s", ErrNonFinite, whereNonFinite(xs.RawRowView(t)))
			}
			return fmt.Errorf("trial %d of the observation holds NaN or infinite values (%w): %s", t, ErrNonFinite, whereNonFinite(xs.RawRowView(t)))
		}
	}
	return nil
}

// checkReadableTrials returns an error naming the first trial of xs that the embedding's
// InputLayout cannot read (nil without a layout): the embedding would read it as another
// observation.
func (c *estimator) checkReadableTrials(xs *mat.Dense) error {
	if c.layout == nil {
		return nil
	}
	T, _ := xs.Dims()
	for t := 0; t < T; t++ {
		if err := readable(c.layout, xs.RawRowView(t)); err != nil {
			if T == 1 {
				return fmt.Errorf("the observation cannot be read by the embedding: %w", err)
			}
			return fmt.Errorf("trial %d of the observation cannot be read by the embedding: %w", t, err)
		}
	}
	return nil
}

// sumOverTrials evaluates, in parallel chunks of θ rows, eval(tp, lo, hi): the (hi−lo)·T
// values of the rows lo…hi−1 paired with each of T trials (row (i−lo)·T + t pairs θᵢ with
// trial t), and returns their sums over the trials. A chunk holds at most evalChunk pairs (at
// least one θ row), so memory does not grow with T.
func sumOverTrials(n, T int, eval func(tp *nn.Tape, lo, hi int) []float64) []float64 {
	out := make([]float64, n)
	chunk := chunkFor(n)
	if T > 1 {
		chunk = max(1, min(chunk, evalChunk/T))
	}
	parallelChunks(n, chunk, func(_, lo, hi int) {
		tp := getTape()
		defer putTape(tp)
		v := eval(tp, lo, hi)
		for i := lo; i < hi; i++ {
			s := 0.0
			for _, w := range v[(i-lo)*T : (i-lo+1)*T] {
				s += w
			}
			out[i] = s
		}
	})
	return out
}

// tiledRows returns on tp the rows of m repeated as a block times times: row k·T + t is row t
// of m's T rows.
func tiledRows(tp *nn.Tape, m *mat.Dense, times int) *nn.Tensor {
	T, c := m.Dims()
	out := tp.New(T*times, c)
	for k := 0; k < times; k++ {
		for t := 0; t < T; t++ {
			copy(out.Data[(k*T+t)*c:(k*T+t+1)*c], m.RawRowView(t))
		}
	}
	return out
}

// PosteriorTrials returns p̂(θ | x₁ … x_T) ∝ p(θ)·Πₜ r̄(θ, xₜ) for the trials xₜ, the rows of xs,
// r̄ the ensemble's ratio of one trial, the mean of its members' (LogRatio): each trial's
// ratio is averaged over the members, and the averages multiply over the trials. This is the
// ensemble's ratio estimate of one trial put in the identity that makes a ratio estimator
// serve i.i.d. trials, so Trials(1) is the ensemble itself; the mixture of the members'
// posteriors of all the trials, (1/K) Σₖ Πₜ r̂ₖ(θ, xₜ), would instead let the member whose
// errors compound most over the trials dominate. It is sampled as the ensemble's Sampler says,
// with the rules of NRE.PosteriorTrials.
func (e *NREEnsemble) PosteriorTrials(xs *mat.Dense) *RatioPosterior {
	return e.PosteriorTrialsWith(xs, e.Sampler)
}

// PosteriorTrialsWith is PosteriorTrials with a given sampler configuration.
func (e *NREEnsemble) PosteriorTrialsWith(xs *mat.Dense, s SamplerConfig) *RatioPosterior {
	label := e.label() + " trials"
	if err := e.untrained(); err != nil {
		return newRatioPosterior(label, nil, e.prior(), nil, err, s).ofTrials(xs)
	}
	checkTrials("NREEnsemble.PosteriorTrials", xs, e.Members[0].xDim)
	lr, err := e.ratioTrials(mat.DenseCopyOf(xs))
	if err == nil {
		warnEnsembleTrials(label+" posterior", e.cores(), xs)
	}
	return newRatioPosterior(label, nil, e.prior(), lr, err, s).ofTrials(xs)
}

// ratioTrials returns θ ↦ Σₜ log r̄(θ, xₜ) over the rows of xs, the members' contexts of every
// trial computed once.
func (e *NREEnsemble) ratioTrials(xs *mat.Dense) (func(theta *mat.Dense) []float64, error) {
	if err := checkFiniteTrials(xs); err != nil {
		return nil, err
	}
	for _, m := range e.Members {
		if err := m.checkReadableTrials(xs); err != nil {
			return nil, err
		}
	}
	T, _ := xs.Dims()
	fs := make([][]func(*mat.Dense) []float64, T) // fs[t][k]: member k's log-ratio of trial t
	for t := range fs {
		fs[t] = make([]func(*mat.Dense) []float64, len(e.Members))
		for k, m := range e.Members {
			f, err := m.ratioAt(xs.RawRowView(t), false)
			if err != nil {
				return nil, fmt.Errorf("trial %d, member %d: %w", t, k, err)
			}
			fs[t][k] = f
		}
	}
	return func(theta *mat.Dense) []float64 {
		n, _ := theta.Dims()
		out := make([]float64, n)
		parts := make([][]float64, len(e.Members))
		for _, ft := range fs {
			for k, f := range ft {
				parts[k] = f(theta)
			}
			for i, v := range logMeanExp(parts) {
				out[i] += v
			}
		}
		return out
	}, nil
}
