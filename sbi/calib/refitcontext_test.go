package calib

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
)

// TestScoreCalibrateInterruptInRefit: a Refit took no context, so a refit that trains could
// not be stopped by the calibration's context (only the loop between refits was), and an
// interrupt's error did not say what the calibration keeps. ScoreCalibrateRefitContext passes
// its context to the refit (a RefitContext), so that a training inside it stops with the
// caller's interrupt; the training's error then claims nothing of its own (the context is
// marked as the calibration's), and the calibration's error says how many datasets were done
// and that nothing is kept, as ScoreCalibrateContext's error now does too.
func TestScoreCalibrateInterruptInRefit(t *testing.T) {
	m := linGaussModel{d: 1, s0: 2, sigma: 1}
	prior := dist.NewNormal([]float64{0}, []float64{2})
	rng := rand.New(rand.NewPCG(5, 6))
	theta := prior.Sample(rng, 200)
	x := m.simulate(rng, theta)
	const want = "calib: score calibration stopped by interrupt after 2 of 8 calibration datasets; nothing kept: "
	for _, c := range []struct {
		name string
		run  func(ctx context.Context, cancel func(), refit RefitContext) error
	}{
		{"RefitContext", func(ctx context.Context, _ func(), refit RefitContext) error {
			obs := m.prior().Sample(rand.New(rand.NewPCG(1, 2)), 20)
			_, err := ScoreCalibrateRefitContext(ctx, rand.New(rand.NewPCG(1, 3)), obs, m.simulate, refit, ScoreCalConfig{M: 8, N: 20})
			return err
		}},
		{"Refit", func(ctx context.Context, _ func(), refit RefitContext) error {
			plain := func(rng *rand.Rand, x []float64, n int) (*mat.Dense, error) { return refit(ctx, rng, x, n) }
			obs := m.prior().Sample(rand.New(rand.NewPCG(1, 2)), 20)
			_, err := ScoreCalibrateContext(ctx, rand.New(rand.NewPCG(1, 3)), obs, m.simulate, plain, ScoreCalConfig{M: 8, N: 20})
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			refits := 0
			// The third refit trains an NPE with the context it is given; the interrupt comes
			// as it starts.
			refit := func(ctx context.Context, rng *rand.Rand, x0 []float64, n int) (*mat.Dense, error) {
				if refits++; refits < 3 {
					return m.estimator(1, 0).Posterior(x0).Sample(rng, n), nil
				}
				cancel()
				npe := sbi.NewNPE(prior, sbi.NPEConfig{Transforms: 1, Hidden: 4})
				if _, err := npe.TrainContext(ctx, theta, x, sbi.TrainConfig{Epochs: 2, Seed: 1}); err != nil {
					return nil, err
				}
				return npe.Posterior(x0).Sample(rng, n), nil
			}
			err := c.run(ctx, cancel, refit)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want one wrapping context.Canceled", err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, want) {
				t.Errorf("error %q, want it to begin %q", msg, want)
			}
			if c.name == "RefitContext" && strings.Count(msg, "kept")+strings.Count(msg, "not trained") != 1 {
				t.Errorf("error %q: the refit's training claims what it keeps beside the calibration", msg)
			}
		})
	}
}
