package sbi_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/sbi/dist"
)

// TestDroppedRowsMismatchSaysWhy checks the error when θ keeps the rows a simulation dropped:
// training on, or testing with, the θ given to sbi.Simulate beside its X (a newcomer's first
// mistake with a simulator that fails) said only that the row counts differ; it now says that
// Simulate drops failed rows and to pass its Theta with its X.
func TestDroppedRowsMismatchSaysWhy(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	prior := dist.NewUniformCube(-1, 1, 2)
	theta := prior.Sample(rng, 200)
	sim := sbi.MustSimulate(rng, func(_ *rand.Rand, th []float64) []float64 {
		if th[0] > 0.5 {
			return nil // a failed simulation
		}
		return []float64{th[0], th[1]}
	}, theta)
	if sim.Dropped == 0 {
		t.Fatal("no simulation dropped")
	}
	npe := sbi.NewNPE(prior, sbi.NPEConfig{Hidden: 4, Transforms: 1})
	_, trainErr := npe.Train(theta, sim.X, sbi.TrainConfig{Epochs: 1})
	_, covErr := diag.RankCoverage(npe, theta, sim.X, diag.RankConfig{})
	for name, err := range map[string]error{"Train": trainErr, "RankCoverage": covErr} {
		if err == nil || !strings.Contains(err.Error(), "sbi.Simulate drops the simulations that fail: pass its Theta, the rows kept, with its X") {
			t.Errorf("%s: %v, want it to say that Simulate drops failed rows", name, err)
		}
	}
}
