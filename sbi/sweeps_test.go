package sbi

import (
	"context"
	"errors"
	"math"
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
		{"Thin", SamplerConfig{Method: SamplerMCMC, Chains: 2, Thin: math.MaxInt/2 + 1}},
		{"BurnIn", SamplerConfig{Method: SamplerMCMC, Chains: 2, BurnIn: math.MaxInt}},
		// (MaxInt+1)/2 + 2·(MaxInt+1)/4 is MaxInt + 1.
		{"both", SamplerConfig{Method: SamplerMCMC, Chains: 2, BurnIn: math.MaxInt/2 + 1, Thin: math.MaxInt/4 + 1}},
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

// TestSamplersNonFiniteLogDensity checks the errors of every ratio sampler for a log-ratio that
// is +Inf at one point and finite elsewhere (an estimator whose output overflowed: the error
// must say +Inf, not that no point is finite), and for one that is −Inf everywhere (the
// posterior puts no mass where the sampler looked).
func TestSamplersNonFiniteLogDensity(t *testing.T) {
	plusInf := func(theta *mat.Dense) []float64 {
		n, _ := theta.Dims()
		out := make([]float64, n)
		out[n/2] = math.Inf(1)
		return out
	}
	minusInf := func(theta *mat.Dense) []float64 {
		n, _ := theta.Dims()
		out := make([]float64, n)
		for i := range out {
			out[i] = math.Inf(-1)
		}
		return out
	}
	for _, m := range []SamplerMethod{SamplerMCMC, SamplerGrid, SamplerImportance} {
		for _, c := range []struct {
			name      string
			lr        func(*mat.Dense) []float64
			want, not string
		}{
			{"+Inf", plusInf, "+Inf", "no point has a finite"},
			{"-Inf", minusInf, "zero density", "+Inf"},
		} {
			t.Run(string(m)+"/"+c.name, func(t *testing.T) {
				p := newRatioPosterior("test", nil, dist.NewUniformCube(0, 1, 2), c.lr, nil, SamplerConfig{Method: m})
				_, err := p.SampleContext(t.Context(), rand.New(rand.NewPCG(1, 1)), 10)
				if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), c.not) {
					t.Errorf("error %v, want one that says %q and not %q", err, c.want, c.not)
				}
			})
		}
	}
}
