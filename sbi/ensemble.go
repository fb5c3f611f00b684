package sbi

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/internal/cancel"
	"github.com/gosbi/gosbi/sbi/internal/draw"
	"github.com/gosbi/gosbi/sbi/internal/safe"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// NPEEnsemble is the equal-weight mixture of K NPEs, q(θ | x) = (1/K) Σₖ qₖ(θ | x), as sbi's
// EnsemblePosterior. It implements Estimator: Train trains every member on the same pairs
// (member k with seed cfg.Seed + k, so that members differ by their initial weights and batch
// order: a deep ensemble), and Save writes them all.
type NPEEnsemble struct {
	Members []*NPE
}

// NewNPEEnsemble returns the mixture of the members: all with the same prior (the same value,
// or the same distribution built again), and all trained, for the same parameter and
// observation dimensions, or all untrained, to be trained together by Train.
func NewNPEEnsemble(members ...*NPE) (*NPEEnsemble, error) {
	cores := make([]*estimator, len(members))
	for k, m := range members {
		if m != nil {
			cores[k] = &m.estimator
		}
	}
	if err := checkMembers("NPE ensemble", cores); err != nil {
		return nil, err
	}
	return &NPEEnsemble{Members: members}, nil
}

// MustNewNPEEnsemble is NewNPEEnsemble for notebook cells: it panics with its error.
func MustNewNPEEnsemble(members ...*NPE) *NPEEnsemble { return safe.Must(NewNPEEnsemble(members...)) }

// checkMembers returns an error unless there is at least one member, none is nil, and the
// members are either all untrained or all trained for the same dimensions.
func checkMembers(what string, cores []*estimator) error {
	if len(cores) == 0 {
		return fmt.Errorf("%s: no members, expected at least one estimator", what)
	}
	for k, c := range cores {
		switch {
		case c == nil:
			return fmt.Errorf("%s: member %d is nil", what, k)
		case c.prior.Dim() != cores[0].prior.Dim():
			return fmt.Errorf("%s: member %d has %d parameters, member 0 %d", what, k, c.prior.Dim(), cores[0].prior.Dim())
		case c.trained != cores[0].trained:
			return fmt.Errorf("%s: member %d is %s and member 0 is %s: combine trained members, or untrained ones and call Train: %w",
				what, k, trainedWord(c.trained), trainedWord(cores[0].trained), ErrUntrained)
		case c.trained && c.xDim != cores[0].xDim:
			return fmt.Errorf("%s: member %d was trained on %d data values, member 0 on %d", what, k, c.xDim, cores[0].xDim)
		}
		if err := samePrior(cores[0].prior, c.prior); err != nil {
			return fmt.Errorf("%s: member %d: %w: the ensemble's posterior is a mixture under one prior; build its members with the same prior", what, k, err)
		}
	}
	return nil
}

// priorProbes is the number of points at which samePrior compares two priors.
const priorProbes = 64

// samePrior returns an error unless b is the same prior as a, as far as can be seen: the same
// value, or a distribution with the same support box and the same log-density at priorProbes
// draws of a from a fixed seed (a prior loaded from a file, or built again, is a new value of
// the same distribution). Members of an ensemble evaluate their posteriors under the first
// member's prior, so another prior would be silently wrong.
func samePrior(a, b dist.Distribution) error {
	if a == b {
		return nil
	}
	alo, ahi := a.Support()
	blo, bhi := b.Support()
	if !floats.Equal(alo, blo) || !floats.Equal(ahi, bhi) {
		return fmt.Errorf("its prior's support %v…%v is not member 0's %v…%v", blo, bhi, alo, ahi)
	}
	pts := a.Sample(rand.New(rand.NewPCG(0x707269, 0x6f72)), priorProbes)
	la, lb := a.LogProb(pts), b.LogProb(pts)
	for i := range la {
		if la[i] != lb[i] && math.Abs(la[i]-lb[i]) > 1e-12*(1+math.Abs(la[i])) {
			return fmt.Errorf("its prior's log-density at θ = %v is %v, member 0's %v", pts.RawRowView(i), lb[i], la[i])
		}
	}
	return nil
}

// untrainedMember returns an error wrapping ErrUntrained that names the first member of the
// ensemble label that is not trained (its training failed, or stopped before an epoch
// finished, while others trained), nil when every member is trained.
func untrainedMember(label string, trained []bool) error {
	for k, ok := range trained {
		if !ok {
			return fmt.Errorf("%s: member %d is not trained (its training failed or stopped before an epoch finished): train the ensemble again, or that member and then build the ensemble anew: %w",
				label, k, ErrUntrained)
		}
	}
	return nil
}

func trainedWord(trained bool) string {
	if trained {
		return "trained"
	}
	return "untrained"
}

// trainMembers trains every member on the pairs, member k with seed cfg.Seed + k, and gathers
// their results; it stops at the first error (an interrupt included: the members trained so far
// stay trained, the interrupted one keeps its best epoch).
func trainMembers(ctx context.Context, label string, members []func(context.Context, TrainConfig) (*TrainResult, error), cfg TrainConfig) (*TrainResult, error) {
	res := &TrainResult{Estimator: label}
	for k, train := range members {
		c := cfg
		c.Seed = cfg.Seed + uint64(k)
		r, err := train(ctx, c)
		if r != nil {
			res.Members = append(res.Members, r)
			res.Duration += r.Duration
			res.Interrupted = res.Interrupted || r.Interrupted
			if k == 0 {
				res.Dropped, res.TrainRows, res.ValRows, res.Warnings = r.Dropped, r.TrainRows, r.ValRows, r.Warnings
			}
		}
		if err != nil {
			return res, fmt.Errorf("train %s, member %d: %w", label, k, err)
		}
	}
	return res, nil
}

// Prior returns the members' prior.
func (e *NPEEnsemble) Prior() dist.Distribution { return e.Members[0].prior }

// Trained reports whether every member is trained.
func (e *NPEEnsemble) Trained() bool {
	for _, m := range e.Members {
		if !m.trained {
			return false
		}
	}
	return true
}

// label names the ensemble in results and displays.
func (e *NPEEnsemble) label() string { return fmt.Sprintf("NPE ensemble of %d", len(e.Members)) }

// Train trains every member on the pairs, member k with seed cfg.Seed + k (see NPE.Train, whose
// rules each member follows); the result holds each member's in Members. It stops at the first
// member's error.
func (e *NPEEnsemble) Train(theta, x *mat.Dense, cfg TrainConfig) (*TrainResult, error) {
	return e.TrainContext(runenv.Context(), theta, x, cfg)
}

// MustTrain is Train for notebook cells: it panics with Train's error.
func (e *NPEEnsemble) MustTrain(theta, x *mat.Dense, cfg TrainConfig) *TrainResult {
	return safe.Must(e.Train(theta, x, cfg))
}

// TrainContext is Train stopped by ctx instead of the host's context.
func (e *NPEEnsemble) TrainContext(ctx context.Context, theta, x *mat.Dense, cfg TrainConfig) (*TrainResult, error) {
	fs := make([]func(context.Context, TrainConfig) (*TrainResult, error), len(e.Members))
	for k, m := range e.Members {
		fs[k] = func(ctx context.Context, c TrainConfig) (*TrainResult, error) {
			return m.TrainContext(ctx, theta, x, c)
		}
	}
	return trainMembers(ctx, e.label(), fs, cfg)
}

// untrained returns the error of a member that is not trained, nil when all are.
func (e *NPEEnsemble) untrained() error {
	ok := make([]bool, len(e.Members))
	for k, m := range e.Members {
		ok[k] = m.trained
	}
	return untrainedMember(e.label(), ok)
}

// LogProbPairs is log (1/K) Σₖ qₖ(θᵢ | xᵢ) for every row pair. It panics, naming the member,
// when a member is not trained.
func (e *NPEEnsemble) LogProbPairs(theta, x *mat.Dense) []float64 {
	if err := e.untrained(); err != nil {
		panic(fmt.Errorf("sbi: LogProbPairs: %w", err))
	}
	parts := make([][]float64, len(e.Members))
	for k, m := range e.Members {
		parts[k] = m.checkedLogProbPairs(theta, x, false)
	}
	warnEnsembleTrials(e.label()+" LogProbPairs", e.cores(), x)
	return logMeanExp(parts)
}

// cores returns the members' estimators.
func (e *NPEEnsemble) cores() []*estimator { return coresOf(e.Members) }

// coresOf returns the shared cores of an ensemble's members.
func coresOf[M interface{ core() *estimator }](members []M) []*estimator {
	out := make([]*estimator, len(members))
	for k, m := range members {
		out[k] = m.core()
	}
	return out
}

// logMeanExp returns log (1/K) Σₖ exp(parts[k][i]) for every i, computed stably.
func logMeanExp(parts [][]float64) []float64 {
	out := make([]float64, len(parts[0]))
	logK := math.Log(float64(len(parts)))
	for i := range out {
		m := math.Inf(-1)
		for _, p := range parts {
			m = math.Max(m, p[i])
		}
		if math.IsInf(m, -1) {
			out[i] = m
			continue
		}
		s := 0.0
		for _, p := range parts {
			s += math.Exp(p[i] - m)
		}
		out[i] = m + math.Log(s) - logK
	}
	return out
}

// Posterior returns the mixture of the members' posteriors for x.
func (e *NPEEnsemble) Posterior(x []float64) Posterior { return e.PosteriorAt(x) }

// PosteriorAt is Posterior with the concrete type. When a member is not trained, its LogProb
// panics and its SampleContext returns an error naming the member.
func (e *NPEEnsemble) PosteriorAt(x []float64) *MixturePosterior {
	mp := &MixturePosterior{err: e.untrained()}
	readable := true // every member's check of x passed: each checks it once, in posteriorAt
	for _, m := range e.Members {
		p := m.posteriorAt(x, false)
		readable = readable && p.err == nil
		mp.Members = append(mp.Members, p)
	}
	if mp.err == nil && readable {
		warnEnsembleTrials(e.label()+" posterior", e.cores(), mat.NewDense(1, len(x), x)) // only read: no copy
		warnEnsembleOutside(e.label()+" posterior", e.cores(), x)
	}
	return mp
}

// MixturePosterior is the equal-weight mixture of posteriors over the same parameters.
type MixturePosterior struct {
	Members []Posterior
	err     error // why it cannot be evaluated (an untrained member of an ensemble)
}

// Dim is the number of parameters.
func (p *MixturePosterior) Dim() int { return p.Members[0].Dim() }

// LogProb is log (1/K) Σₖ pₖ(θ) for every row.
func (p *MixturePosterior) LogProb(theta *mat.Dense) []float64 {
	if p.err != nil {
		panic(fmt.Errorf("sbi: mixture posterior LogProb: %w", p.err))
	}
	parts := make([][]float64, len(p.Members))
	for k, m := range p.Members {
		parts[k] = m.LogProb(theta)
	}
	return logMeanExp(parts)
}

// Sample draws n points, stopped by the host's context; it panics with SampleContext's error.
func (p *MixturePosterior) Sample(rng *rand.Rand, n int) *mat.Dense {
	return safe.Must(p.SampleContext(runenv.Context(), rng, n))
}

// SampleChecked is SampleContext with the host's context.
//
// Deprecated: use SampleContext (or Sample in a notebook cell).
func (p *MixturePosterior) SampleChecked(rng *rand.Rand, n int) (*mat.Dense, error) {
	return p.SampleContext(runenv.Context(), rng, n)
}

// SampleContext draws the number of points of each member from a multinomial with equal
// probabilities, samples the members (until ctx is done) and shuffles the rows. n·Dim may be
// at most 2²⁶ (67,108,864) values: a larger request returns an error before anything is drawn
// (draw in several calls).
func (p *MixturePosterior) SampleContext(ctx context.Context, rng *rand.Rand, n int) (*mat.Dense, error) {
	if p.err != nil {
		return nil, fmt.Errorf("mixture posterior: %w", p.err)
	}
	if err := checkSampleSize("mixture posterior", n, p.Dim()); err != nil {
		return nil, err
	}
	counts := make([]int, len(p.Members))
	for i := 0; i < n; i++ {
		counts[rng.IntN(len(counts))]++
	}
	out := mat.NewDense(n, p.Dim(), nil)
	row := 0
	for k, m := range p.Members {
		if counts[k] == 0 {
			continue
		}
		// The member's draws are the mixture's: its error says how many the mixture drew.
		s, err := sampleContext(cancel.CallerKeeps(ctx), m, rng, counts[k])
		if err != nil {
			return nil, cancel.Drawn(ctx, fmt.Errorf("mixture posterior, member %d: %w", k, err), row, n)
		}
		for i := 0; i < counts[k]; i++ {
			out.SetRow(row, s.RawRowView(i))
			row++
		}
	}
	perm := rng.Perm(n)
	shuffled := mat.NewDense(n, p.Dim(), nil)
	for i, j := range perm {
		shuffled.SetRow(i, out.RawRowView(j))
	}
	return shuffled, nil
}

// contextSampler is a posterior that samples until a context is done and reports failures as
// errors: the posteriors of this package.
type contextSampler = draw.ContextSampler

// sampleContext samples p until ctx is done, turning a panic of a posterior without
// SampleContext (a user's, a distribution) into an error: the panic value itself when it is an
// error, so that errors.Is sees its sentinel.
func sampleContext(ctx context.Context, p Posterior, rng *rand.Rand, n int) (*mat.Dense, error) {
	return draw.Recovered(ctx, p, rng, n)
}

// NREEnsemble averages the ratios of K NREs, r̄ = (1/K) Σₖ r̂ₖ (the "ratio mean" of Hermans et
// al. 2022 and Delaunoy et al. 2022). It implements Estimator: Train trains every member on the
// same pairs (member k with seed cfg.Seed + k), and Save writes them all.
type NREEnsemble struct {
	Members []*NRE
	Sampler SamplerConfig // how Posterior samples
}

// NewNREEnsemble returns the ensemble of the members: all with the same prior (the same value,
// or the same distribution built again), and all trained, for the same parameter and
// observation dimensions, or all untrained, to be trained together by Train. It samples with
// the first member's sampler settings.
func NewNREEnsemble(members ...*NRE) (*NREEnsemble, error) {
	cores := make([]*estimator, len(members))
	for k, m := range members {
		if m != nil {
			cores[k] = &m.estimator
		}
	}
	if err := checkMembers("NRE ensemble", cores); err != nil {
		return nil, err
	}
	return &NREEnsemble{Members: members, Sampler: members[0].cfg.Sampler}, nil
}

// MustNewNREEnsemble is NewNREEnsemble for notebook cells: it panics with its error.
func MustNewNREEnsemble(members ...*NRE) *NREEnsemble { return safe.Must(NewNREEnsemble(members...)) }

func (e *NREEnsemble) prior() dist.Distribution { return e.Members[0].prior }

// Prior returns the members' prior.
func (e *NREEnsemble) Prior() dist.Distribution { return e.prior() }

// Trained reports whether every member is trained.
func (e *NREEnsemble) Trained() bool {
	for _, m := range e.Members {
		if !m.trained {
			return false
		}
	}
	return true
}

// label names the ensemble in results and displays.
func (e *NREEnsemble) label() string { return fmt.Sprintf("NRE ensemble of %d", len(e.Members)) }

// Train trains every member on the pairs, member k with seed cfg.Seed + k (see NRE.Train, whose
// rules each member follows); the result holds each member's in Members. It stops at the first
// member's error.
func (e *NREEnsemble) Train(theta, x *mat.Dense, cfg TrainConfig) (*TrainResult, error) {
	return e.TrainContext(runenv.Context(), theta, x, cfg)
}

// MustTrain is Train for notebook cells: it panics with Train's error.
func (e *NREEnsemble) MustTrain(theta, x *mat.Dense, cfg TrainConfig) *TrainResult {
	return safe.Must(e.Train(theta, x, cfg))
}

// TrainContext is Train stopped by ctx instead of the host's context.
func (e *NREEnsemble) TrainContext(ctx context.Context, theta, x *mat.Dense, cfg TrainConfig) (*TrainResult, error) {
	fs := make([]func(context.Context, TrainConfig) (*TrainResult, error), len(e.Members))
	for k, m := range e.Members {
		fs[k] = func(ctx context.Context, c TrainConfig) (*TrainResult, error) {
			return m.TrainContext(ctx, theta, x, c)
		}
	}
	return trainMembers(ctx, e.label(), fs, cfg)
}

// untrained returns the error of a member that is not trained, nil when all are.
func (e *NREEnsemble) untrained() error {
	ok := make([]bool, len(e.Members))
	for k, m := range e.Members {
		ok[k] = m.trained
	}
	return untrainedMember(e.label(), ok)
}

// LogRatio is log (1/K) Σₖ r̂ₖ(θᵢ, xᵢ) for every row pair; NaN where a member's is (an xᵢ
// holding NaN or ±Inf, or one the embedding cannot read). It panics, naming the member, when
// a member is not trained.
func (e *NREEnsemble) LogRatio(theta, x *mat.Dense) []float64 {
	return e.logRatio("LogRatio", theta, x)
}

// logRatio is LogRatio for the public method named method, which its panics and the members'
// warnings name.
func (e *NREEnsemble) logRatio(method string, theta, x *mat.Dense) []float64 {
	if err := e.untrained(); err != nil {
		panic(fmt.Errorf("sbi: %s: %w", method, err))
	}
	parts := make([][]float64, len(e.Members))
	for k, m := range e.Members {
		parts[k] = m.logRatio(method, false, theta, x)
	}
	warnEnsembleTrials(e.label()+" "+method, e.cores(), x)
	return logMeanExp(parts)
}

// cores returns the members' estimators.
func (e *NREEnsemble) cores() []*estimator { return coresOf(e.Members) }

// LogProbPairs is log p(θᵢ) + log r̄(θᵢ, xᵢ) for every row pair (unnormalized), −Inf where
// the members' is: outside the prior's support, and where xᵢ holds NaN or ±Inf or cannot be
// read by the embedding.
func (e *NREEnsemble) LogProbPairs(theta, x *mat.Dense) []float64 {
	lr := e.logRatio("LogProbPairs", theta, x)
	lp := e.prior().LogProb(theta)
	for i := range lr {
		lr[i] = cleanLogProb(lp[i]+lr[i], e.prior(), theta.RawRowView(i))
	}
	return lr
}

// Posterior returns p̂(θ | x) ∝ p(θ)·r̄(θ, x).
func (e *NREEnsemble) Posterior(x []float64) Posterior { return e.PosteriorAt(x) }

// PosteriorAt is Posterior with the concrete type.
func (e *NREEnsemble) PosteriorAt(x []float64) *RatioPosterior {
	if err := e.untrained(); err != nil {
		return newRatioPosterior(e.label(), x, e.prior(), nil, err, e.Sampler)
	}
	fs := make([]func(*mat.Dense) []float64, len(e.Members))
	for k, m := range e.Members {
		f, err := m.ratioAt(x, false)
		if err != nil {
			return newRatioPosterior(e.label(), x, e.prior(), nil, err, e.Sampler)
		}
		fs[k] = f
	}
	warnEnsembleTrials(e.label()+" posterior", e.cores(), mat.NewDense(1, len(x), x)) // only read: no copy
	warnEnsembleOutside(e.label()+" posterior", e.cores(), x)
	lr := func(theta *mat.Dense) []float64 {
		parts := make([][]float64, len(fs))
		for k, f := range fs {
			parts[k] = f(theta)
		}
		return logMeanExp(parts)
	}
	return newRatioPosterior(e.label(), x, e.prior(), lr, nil, e.Sampler)
}
