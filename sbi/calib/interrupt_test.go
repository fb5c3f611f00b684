package calib

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/internal/progresstest"
	"github.com/gosbi/gosbi/sbi"
)

// TestInterruptLastProgress: the last progress message of a calib call stopped by an interrupt
// says how far it got and that nothing is kept (the call returns only its error, and a cell
// whose Must form an interrupt stopped shows this line, not the error, which comes after the
// interrupt has ended the cell).
func TestInterruptLastProgress(t *testing.T) {
	m := linGaussModel{d: 1, s0: 2, sigma: 1}
	cases := []struct {
		name, label, want string
		run               func(ctx context.Context, cancel func()) error
	}{
		{"ScoreCalibrate after 3 refits", "score calibration refits", "stopped by interrupt after 3 of 8 calibration datasets; nothing kept",
			func(ctx context.Context, cancel func()) error {
				refits := 0
				refit := func(rng *rand.Rand, x []float64, n int) (*mat.Dense, error) {
					if refits++; refits == 3 {
						cancel()
					}
					return m.estimator(1, 0).Posterior(x).Sample(rng, n), nil
				}
				obs := m.prior().Sample(rand.New(rand.NewPCG(1, 2)), 20)
				_, err := ScoreCalibrateContext(ctx, rand.New(rand.NewPCG(1, 3)), obs, m.simulate, refit, ScoreCalConfig{M: 8, N: 20})
				return err
			}},
		{"CANVI before a candidate", "CANVI candidates", "stopped by interrupt before any of 2 candidates finished; nothing kept",
			func(ctx context.Context, cancel func()) error {
				sims := 0
				sim := func(rng *rand.Rand, th *mat.Dense) *mat.Dense {
					if sims++; sims == 2 { // the test set D_T
						cancel()
					}
					return m.simulate(rng, th)
				}
				cands := []sbi.Amortized{m.estimator(1, 0), m.estimator(2, 0)}
				_, err := CANVIContext(ctx, rand.New(rand.NewPCG(3, 5)), cands, m.prior(), sim, CANVIConfig{Alpha: 0.1, NCal: 50, NTest: 5, Volume: VolumeConfig{Samples: 50}})
				return err
			}},
		{"ExpectedVolume cancelled", "conformal volume", "stopped by interrupt before any of 5 observations finished; nothing kept",
			func(ctx context.Context, cancel func()) error {
				rng := rand.New(rand.NewPCG(2, 7))
				th := m.prior().Sample(rng, 50)
				c, err := NewConformal(m.estimator(1, 0), th, m.simulate(rng, th), 0.1)
				if err != nil {
					return err
				}
				cancel()
				th = m.prior().Sample(rng, 5)
				_, _, err = c.ExpectedVolumeContext(ctx, rng, m.prior(), m.simulate(rng, th), VolumeConfig{Samples: 50})
				return err
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			last := progresstest.Record(t).LastFinished
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if err := c.run(ctx, cancel); !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want one wrapping context.Canceled", err)
			}
			if got := last(c.label); got != c.want {
				t.Errorf("last message of %q: %q, want %q", c.label, got, c.want)
			}
		})
	}
}

// TestRegionSampleInterruptSaysDrawn: Region.SampleContext stopped by an interrupt returned
// the bare "sampling a conformal region interrupted: context canceled"; its error now says how
// many of the draws were taken and that nothing is kept, as the samplers of sbi do.
func TestRegionSampleInterruptSaysDrawn(t *testing.T) {
	m := linGaussModel{d: 1, s0: 2, sigma: 1}
	rng := rand.New(rand.NewPCG(2, 7))
	th := m.prior().Sample(rng, 50)
	c, err := NewConformal(m.estimator(1, 0), th, m.simulate(rng, th), 0.1)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = c.Region([]float64{0}).SampleContext(ctx, rng, 30)
	const want = "stopped by interrupt before any of 30 draws finished; nothing kept: sampling a conformal region interrupted: context canceled"
	if !errors.Is(err, context.Canceled) || err.Error() != want {
		t.Errorf("error %q, want %q (wrapping context.Canceled)", err, want)
	}
}
