package sbi

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/dist"
)

// TestSliceSweepsOverflow checks that MCMC refuses settings whose sweeps, BurnIn +
// ⌈n/Chains⌉·Thin, overflow a count, with an error naming the settings, instead of running no
// sweep at all and returning a matrix of zeros.
func TestSliceSweepsOverflow(t *testing.T) {
	flat := func(theta *mat.Dense) []float64 { n, _ := theta.Dims(); return make([]float64, n) }
	for _, c := range []struct {
		name string
		cfg  SamplerConfig
	}{
		{"Thin", SamplerConfig{Method: SamplerMCMC, Chains: 2, Thin: 1 << 62}},
		{"BurnIn", SamplerConfig{Method: SamplerMCMC, Chains: 2, BurnIn: 1<<63 - 1}},
		{"both", SamplerConfig{Method: SamplerMCMC, Chains: 2, BurnIn: 1 << 62, Thin: 1 << 61}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newRatioPosterior("test", nil, dist.NewUniformCube(0, 1, 2), flat, nil, c.cfg)
			s, err := p.SampleContext(t.Context(), rand.New(rand.NewPCG(1, 1)), 4)
			if err == nil {
				t.Fatalf("draws %v, want an error naming BurnIn and Thin", s.RawMatrix().Data)
			}
			if !strings.Contains(err.Error(), "BurnIn") || !strings.Contains(err.Error(), "Thin") {
				t.Errorf("error %q, want it to name BurnIn and Thin", err)
			}
		})
	}
}

// TestSliceInitStopsOnCancel checks that an interrupt stops MCMC's initialization between
// chains: each chain's start is resampled from its own 10,000 prior draws, so with many chains
// the initialization alone can run for hours of network passes, and before this check it ran
// to the end before the first sweep looked at the context.
func TestSliceInitStopsOnCancel(t *testing.T) {
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	calls := 0
	lr := func(theta *mat.Dense) []float64 {
		calls++
		stop() // the interrupt arrives during the first evaluation
		n, _ := theta.Dims()
		return make([]float64, n)
	}
	const chains = 200
	p := newRatioPosterior("test", nil, dist.NewUniformCube(0, 1, 2), lr, nil, SamplerConfig{Method: SamplerMCMC, Chains: chains})
	_, err := p.SampleContext(ctx, rand.New(rand.NewPCG(1, 1)), chains)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want one wrapping context.Canceled", err)
	}
	if calls > 1 {
		t.Errorf("%d evaluations of the ratio after the interrupt, want none after the first (one per chain's initialization: %d chains)", calls-1, chains)
	}
}
