package sbi

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/internal/progresstest"
	"github.com/gosbi/gosbi/sbi/dist"
)

// cancelledAt is a context whose Err is context.Canceled from its call number at on: an
// interrupt that comes between two of a sampler's looks at its context.
type cancelledAt struct {
	context.Context
	calls atomic.Int64
	at    int64
}

func (c *cancelledAt) Err() error {
	if c.calls.Add(1) >= c.at {
		return context.Canceled
	}
	return nil
}

// TestSampleContextInterruptSaysDrawn: a SampleContext stopped by an interrupt returned the
// bare "… interrupted: context canceled", which said neither how far it got nor that its draws
// are lost; and MCMC, the one sampler with a progress bar, ended the bar on its last count
// without the line that training ends with. The error now says how many of the n draws were
// taken and that nothing is kept, and MCMC's last progress line how many sweeps finished.
func TestSampleContextInterruptSaysDrawn(t *testing.T) {
	prior := dist.NewUniformCube(0, 1, 2)
	rng := rand.New(rand.NewPCG(1, 2))
	npe, fm := trainedNPEAndFMPE(t, prior, rng)
	flat := func(theta *mat.Dense) []float64 { n, _ := theta.Dims(); return make([]float64, n) }
	ratio := func(cfg SamplerConfig) Posterior { return newRatioPosterior("test", nil, prior, flat, nil, cfg) }
	const n = 100
	none := fmt.Sprintf("^stopped by interrupt before any of %d draws finished; nothing kept: ", n)
	for _, c := range []struct {
		name     string
		s        contextSampler
		at       int64  // the look at the context that sees the interrupt
		want     string // the error's beginning
		progress string // MCMC's last progress line; "" for none
	}{
		{"NPE", npe.PosteriorAt([]float64{0.5, 0.5}), 1, none, ""},
		{"FMPE", fm.PosteriorAt([]float64{0.5, 0.5}), 1, none, ""},
		{"grid", ratio(SamplerConfig{Method: SamplerGrid}).(contextSampler), 1, none, ""},
		{"importance", ratio(SamplerConfig{Method: SamplerImportance}).(contextSampler), 1, none, ""},
		{"mcmc before a draw", ratio(SamplerConfig{Method: SamplerMCMC, Chains: 10, BurnIn: 5}).(contextSampler), 1, none, ""},
		{"mcmc after draws", ratio(SamplerConfig{Method: SamplerMCMC, Chains: 10, BurnIn: 1}).(contextSampler), 300,
			fmt.Sprintf("^stopped by interrupt after [1-9][0-9]? of %d draws; nothing kept: ", n),
			"^stopped by interrupt after [1-9][0-9]? of 51 sweeps; nothing kept$"},
		{"mixture", &MixturePosterior{Members: []Posterior{ratio(SamplerConfig{Method: SamplerGrid}), ratio(SamplerConfig{Method: SamplerGrid})}}, 1, none, ""},
		{"truncated prior", &TruncatedPrior{prior: prior, post: ratio(SamplerConfig{Method: SamplerGrid}), Threshold: -1, floor: 1e-3}, 1, none, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := progresstest.Record(t)
			ctx := &cancelledAt{Context: context.Background(), at: c.at}
			_, err := c.s.SampleContext(ctx, rand.New(rand.NewPCG(3, 4)), n)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want one wrapping context.Canceled", err)
			}
			if !regexp.MustCompile(c.want).MatchString(err.Error()) {
				t.Errorf("error %q, want it to match %q", err, c.want)
			}
			if last := rec.LastFinished("mcmc"); c.progress != "" && !regexp.MustCompile(c.progress).MatchString(last) {
				t.Errorf("last progress line %q, want it to match %q", last, c.progress)
			}
		})
	}
}
