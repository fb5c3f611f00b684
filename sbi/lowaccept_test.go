package sbi

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/flow"
	"gonum.org/v1/gonum/mat"
)

// TestLowAcceptanceNamesObservationOutside: an NPE trained on θ ~ U(−1, 1), x = θ + 0.1ε,
// asked for the posterior at x = 40 (far outside every simulation) extrapolates its flow out of
// the prior's box. The error must say that the observation lies outside the simulated data,
// not advise training longer, which cannot help there.
func TestLowAcceptanceNamesObservationOutside(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	prior := dist.NewUniformCube(-1, 1, 1)
	theta := prior.Sample(rng, 1000)
	x := mat.NewDense(1000, 1, nil)
	for i := range 1000 {
		x.Set(i, 0, theta.At(i, 0)+0.1*rng.NormFloat64())
	}
	e := NewNPE(prior, NPEConfig{Flow: flow.NSF, Hidden: 16, Transforms: 2})
	if _, err := e.Train(theta, x, TrainConfig{Epochs: 10, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	_, err := e.PosteriorAt([]float64{40}).SampleContext(t.Context(), rand.New(rand.NewPCG(1, 1)), 100)
	if !errors.Is(err, ErrLowAcceptance) {
		t.Fatalf("error %v, want ErrLowAcceptance (the flow leaks out of the box at x = 40)", err)
	}
	if !strings.Contains(err.Error(), "outside the simulated data") || strings.Contains(err.Error(), "train longer") {
		t.Errorf("error %q: want it to say the observation is outside the simulated data, without advising to train longer", err)
	}
}
