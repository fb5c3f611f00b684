package sbi

import (
	"context"
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/internal/cancel"
	"github.com/gosbi/gosbi/sbi/internal/safe"
)

// SampleMany draws n posterior samples for every row of xs from est's posteriors, in parallel
// on all cores: result k holds the n×Dim draws for observation k. Observation k draws from its
// own random stream derived from rng, so the result does not depend on the number of cores.
// It reports progress and stops when the host's context is cancelled. A panic of the
// estimator (an observation of the wrong width) is returned as an error.
func SampleMany(est Amortized, rng *rand.Rand, xs *mat.Dense, n int) ([]*mat.Dense, error) {
	return SampleManyContext(runenv.Context(), est, rng, xs, n)
}

// MustSampleMany is SampleMany for notebook cells: it panics with SampleMany's error.
func MustSampleMany(est Amortized, rng *rand.Rand, xs *mat.Dense, n int) []*mat.Dense {
	return safe.Must(SampleMany(est, rng, xs, n))
}

// SampleManyContext is SampleMany stopped by ctx instead of the host's context.
func SampleManyContext(ctx context.Context, est Amortized, rng *rand.Rand, xs *mat.Dense, n int) ([]*mat.Dense, error) {
	if n < 1 {
		return nil, fmt.Errorf("sample many: n = %d, expected at least 1 sample per observation", n)
	}
	var out []*mat.Dense
	err := safe.Call("sample many", func() (err error) {
		out, err = sampleMany(ctx, est, rng, xs, n)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func sampleMany(ctx context.Context, est Amortized, rng *rand.Rand, xs *mat.Dense, n int) ([]*mat.Dense, error) {
	m, _ := xs.Dims()
	out := make([]*mat.Dense, m)
	errs := make([]error, m)
	s := newStreams(rng)
	progress := NewProgress("posterior samples", m)
	defer progress.Finish()
	parallelChunks(m, 1, func(k, _, _ int) {
		if err := cancel.Check(ctx, "sample many"); err != nil {
			errs[k] = err
			return
		}
		out[k], errs[k] = sampleContext(ctx, est.Posterior(xs.RawRowView(k)), chunkRand(s, k), n)
		progress.Add(1)
	})
	for k, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("sample many, observation %d: %w", k, err)
		}
	}
	return out, nil
}

// The estimators and their ensembles share one vocabulary, Estimator, and serve diagnostics
// through Amortized.
var (
	_ Estimator = (*NPE)(nil)
	_ Estimator = (*NRE)(nil)
	_ Estimator = (*NLE)(nil)
	_ Estimator = (*MNLE)(nil)
	_ Estimator = (*FMPE)(nil)
	_ Estimator = (*NPEEnsemble)(nil)
	_ Estimator = (*NREEnsemble)(nil)
	_ Posterior = (*NPEPosterior)(nil)
	_ Posterior = (*RatioPosterior)(nil)
	_ Posterior = (*MixturePosterior)(nil)
)
