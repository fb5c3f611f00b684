package sbi

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/dist"
)

// cancelAfterRows returns a log-ratio (flat) that cancels the context once it has evaluated at
// least rows rows, and counts the calls made after that.
func cancelAfterRows(stop context.CancelFunc, rows int, evaluated, callsAfter *int) func(*mat.Dense) []float64 {
	return func(theta *mat.Dense) []float64 {
		n, _ := theta.Dims()
		if *evaluated >= rows {
			*callsAfter++
		}
		*evaluated += n
		if *evaluated >= rows {
			stop()
		}
		return make([]float64, n)
	}
}

// TestSamplersStopOnCancel checks that an interrupt stops grid and importance sampling
// between chunks of their evaluations, and MCMC between evaluations within a sweep: the
// log-ratio cancels the context once it has evaluated 100,000 rows, and no evaluation may
// start after that. Before, the grid's 2²⁰ cells and importance sampling's 10⁶ proposals were
// one evaluation, after which neither looked at the context (the draws came back without
// error), and a sweep ran its evaluations to the end.
func TestSamplersStopOnCancel(t *testing.T) {
	const rows = 100_000
	for _, c := range []struct {
		name  string
		cfg   SamplerConfig
		n     int
		total int // rows the sampler would evaluate in all
	}{
		{"grid", SamplerConfig{Method: SamplerGrid, GridPoints: 1 << 20}, 10, 1 << 20},
		{"importance", SamplerConfig{Method: SamplerImportance, Proposals: 1000}, 1000, 1_000_000},
		// 10 chains' initialization evaluates 100,000 rows; the sweeps' evaluations follow.
		{"mcmc", SamplerConfig{Method: SamplerMCMC, Chains: 10, BurnIn: 10}, 10, math.MaxInt},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, stop := context.WithCancel(t.Context())
			defer stop()
			evaluated, callsAfter := 0, 0
			limit := rows
			if c.cfg.Method == SamplerMCMC {
				limit = 10*initCandidates + 10 + 15 // the start's 10 rows, then into the first sweep
			}
			p := newRatioPosterior("test", nil, dist.NewUniformCube(0, 1, 1), cancelAfterRows(stop, limit, &evaluated, &callsAfter), nil, c.cfg)
			_, err := p.SampleContext(ctx, rand.New(rand.NewPCG(1, 1)), c.n)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("error %v, want one wrapping context.Canceled", err)
			}
			if callsAfter > 0 {
				t.Errorf("%d evaluations started after the interrupt (%d rows evaluated in all), want none", callsAfter, evaluated)
			}
		})
	}
}
