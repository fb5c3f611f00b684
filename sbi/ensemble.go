package sbi

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/internal/safe"
	"gonum.org/v1/gonum/mat"
)

// NPEEnsemble is the equal-weight mixture of K trained NPEs, q(θ | x) = (1/K) Σₖ qₖ(θ | x), as
// sbi's EnsemblePosterior. It implements Amortized.
type NPEEnsemble struct {
	Members []*NPE
}

// NewNPEEnsemble returns the mixture of the members, which must be trained for the same
// parameter and observation dimensions.
func NewNPEEnsemble(members ...*NPE) (*NPEEnsemble, error) {
	if len(members) == 0 {
		return nil, fmt.Errorf("NPE ensemble: no members, expected at least one trained NPE")
	}
	for k, m := range members {
		if !m.trained {
			return nil, fmt.Errorf("NPE ensemble: member %d: %w", k, ErrUntrained)
		}
		if m.prior.Dim() != members[0].prior.Dim() || m.xDim != members[0].xDim {
			return nil, fmt.Errorf("NPE ensemble: member %d has %d parameters and %d data values, member 0 %d and %d", k, m.prior.Dim(), m.xDim, members[0].prior.Dim(), members[0].xDim)
		}
	}
	return &NPEEnsemble{Members: members}, nil
}

// LogProbPairs is log (1/K) Σₖ qₖ(θᵢ | xᵢ) for every row pair.
func (e *NPEEnsemble) LogProbPairs(theta, x *mat.Dense) []float64 {
	parts := make([][]float64, len(e.Members))
	for k, m := range e.Members {
		parts[k] = m.LogProbPairs(theta, x)
	}
	return logMeanExp(parts)
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
func (e *NPEEnsemble) Posterior(x []float64) Posterior {
	mp := &MixturePosterior{}
	for _, m := range e.Members {
		mp.Members = append(mp.Members, m.PosteriorAt(x))
	}
	return mp
}

// MixturePosterior is the equal-weight mixture of posteriors over the same parameters.
type MixturePosterior struct {
	Members []Posterior
}

// Dim is the number of parameters.
func (p *MixturePosterior) Dim() int { return p.Members[0].Dim() }

// LogProb is log (1/K) Σₖ pₖ(θ) for every row.
func (p *MixturePosterior) LogProb(theta *mat.Dense) []float64 {
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
// probabilities, samples the members (until ctx is done) and shuffles the rows.
func (p *MixturePosterior) SampleContext(ctx context.Context, rng *rand.Rand, n int) (*mat.Dense, error) {
	if n < 1 {
		return nil, fmt.Errorf("mixture posterior: n = %d, expected at least 1 sample", n)
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
		s, err := sampleContext(ctx, m, rng, counts[k])
		if err != nil {
			return nil, fmt.Errorf("mixture posterior, member %d: %w", k, err)
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
type contextSampler interface {
	SampleContext(ctx context.Context, rng *rand.Rand, n int) (*mat.Dense, error)
}

// sampleContext samples p until ctx is done, turning a panic of a posterior without
// SampleContext (a user's, a distribution) into an error: the panic value itself when it is an
// error, so that errors.Is sees its sentinel.
func sampleContext(ctx context.Context, p Posterior, rng *rand.Rand, n int) (s *mat.Dense, err error) {
	if c, ok := p.(contextSampler); ok {
		return c.SampleContext(ctx, rng, n)
	}
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = e
				return
			}
			err = fmt.Errorf("%v", r)
		}
	}()
	return p.Sample(rng, n), nil
}

// NREEnsemble averages the ratios of K trained NREs, r̄ = (1/K) Σₖ r̂ₖ (the "ratio mean" of
// Hermans et al. 2022 and Delaunoy et al. 2022). It implements Amortized.
type NREEnsemble struct {
	Members []*NRE
	Sampler SamplerConfig // how Posterior samples
}

// NewNREEnsemble returns the ensemble of the members, which must be trained for the same
// parameter and observation dimensions; it samples with the first member's sampler settings.
func NewNREEnsemble(members ...*NRE) (*NREEnsemble, error) {
	if len(members) == 0 {
		return nil, fmt.Errorf("NRE ensemble: no members, expected at least one trained NRE")
	}
	for k, m := range members {
		if !m.trained {
			return nil, fmt.Errorf("NRE ensemble: member %d: %w", k, ErrUntrained)
		}
		if m.prior.Dim() != members[0].prior.Dim() || m.xDim != members[0].xDim {
			return nil, fmt.Errorf("NRE ensemble: member %d has %d parameters and %d data values, member 0 %d and %d", k, m.prior.Dim(), m.xDim, members[0].prior.Dim(), members[0].xDim)
		}
	}
	return &NREEnsemble{Members: members, Sampler: members[0].cfg.Sampler}, nil
}

func (e *NREEnsemble) prior() dist.Distribution { return e.Members[0].prior }

// LogRatio is log (1/K) Σₖ r̂ₖ(θᵢ, xᵢ) for every row pair.
func (e *NREEnsemble) LogRatio(theta, x *mat.Dense) []float64 {
	parts := make([][]float64, len(e.Members))
	for k, m := range e.Members {
		parts[k] = m.LogRatio(theta, x)
	}
	return logMeanExp(parts)
}

// LogProbPairs is log p(θᵢ) + log r̄(θᵢ, xᵢ) for every row pair (unnormalized).
func (e *NREEnsemble) LogProbPairs(theta, x *mat.Dense) []float64 {
	lr := e.LogRatio(theta, x)
	lp := e.prior().LogProb(theta)
	for i := range lr {
		lr[i] = cleanLogProb(lp[i]+lr[i], e.prior(), theta.RawRowView(i))
	}
	return lr
}

// Posterior returns p̂(θ | x) ∝ p(θ)·r̄(θ, x).
func (e *NREEnsemble) Posterior(x []float64) Posterior {
	fs := make([]func(*mat.Dense) []float64, len(e.Members))
	for k, m := range e.Members {
		f, err := m.ratioAt(x)
		if err != nil {
			return newRatioPosterior(e.prior(), nil, err, e.Sampler)
		}
		fs[k] = f
	}
	lr := func(theta *mat.Dense) []float64 {
		parts := make([][]float64, len(fs))
		for k, f := range fs {
			parts[k] = f(theta)
		}
		return logMeanExp(parts)
	}
	return newRatioPosterior(e.prior(), lr, nil, e.Sampler)
}
