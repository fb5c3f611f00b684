package sbi

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// wideSim simulates a series of obsNaNWidth values: θ₀ plus noise at every step.
type wideSim struct{}

const obsNaNWidth = 2000

func (wideSim) DataDim() int { return obsNaNWidth }

func (wideSim) SimulateBatch(rng *rand.Rand, theta, x *mat.Dense) {
	r, c := x.Dims()
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			x.Set(i, j, theta.At(i, 0)+rng.NormFloat64())
		}
	}
}

// TestNonFiniteObservationMessage checks the error for an observation holding NaN or ±Inf:
// it names the position and the value and says what to do, and stays short for a long
// series. It printed the whole observation (here 2,000 values, for an image hundreds of
// thousands) with no position and no advice.
func TestNonFiniteObservationMessage(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	prior, theta, _ := gaussianPairs(rng, 60)
	x := mat.NewDense(60, obsNaNWidth, nil)
	wideSim{}.SimulateBatch(rng, theta, x)
	cfg := TrainConfig{Epochs: 1, Seed: 1}
	npe := NewNPE(prior, NPEConfig{Hidden: 4, Transforms: 1})
	npe.MustTrain(theta, x, cfg)
	nre := NewNRE(prior, NREConfig{Hidden: []int{4}})
	nre.MustTrain(theta, x, cfg)
	nle := NewNLE(prior, NLEConfig{Hidden: 4, Transforms: 1})
	nle.MustTrain(theta, x, cfg)

	xo := make([]float64, obsNaNWidth)
	xo[1234] = math.NaN()
	xo[1500] = math.Inf(1)
	trials := mat.NewDense(3, obsNaNWidth, nil)
	trials.SetRow(2, xo)
	sample := func(p Posterior) error {
		_, err := p.(interface {
			SampleContext(context.Context, *rand.Rand, int) (*mat.Dense, error)
		}).SampleContext(context.Background(), rng, 5)
		return err
	}
	for _, c := range []struct {
		name string
		err  func() error
		want string
	}{
		{"NPE posterior", func() error { return sample(npe.Posterior(xo)) }, "value 1234 of 2000 is NaN (2 of the values are NaN or ±Inf"},
		{"NRE posterior", func() error { return sample(nre.Posterior(xo)) }, "value 1234 of 2000 is NaN"},
		{"NLE posterior", func() error { return sample(nle.Posterior(xo)) }, "value 1234 of 2000 is NaN"},
		{"NLE trials", func() error { return sample(nle.PosteriorTrials(trials)) }, "trial 2 of the observation holds NaN or infinite values (non-finite values): value 1234 of 2000 is NaN"},
		{"CheckObservation", func() error { _, err := npe.CheckObservation(xo); return err }, "value 1234 of 2000 is NaN"},
		{"Sequential", func() error {
			_, err := Sequential(NewNPE(prior, NPEConfig{}), wideSim{}, xo, SequentialConfig{})
			return err
		}, "value 1234 of 2000 is NaN"},
	} {
		err := c.err()
		if !errors.Is(err, ErrNonFinite) {
			t.Errorf("%s: error %v, want one wrapping ErrNonFinite", c.name, err)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, c.want) || !strings.Contains(msg, "replace or remove") || len(msg) > 600 {
			t.Errorf("%s: error of %d bytes %.700q, want at most 600 naming %q and saying what to do", c.name, len(msg), msg, c.want)
		}
	}
}
