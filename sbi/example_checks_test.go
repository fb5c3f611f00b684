package sbi_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/gosbi/gosbi/sbi"
)

// An estimator checks each observation against a reservoir of its training simulations:
// one inside the simulations, and one the simulator under the prior never produces (forming
// a posterior there also prints a warning).
func ExampleNPE_CheckObservation() {
	prior, theta, x := conjugate(1000)
	npe := sbi.NewNPE(prior, sbi.NPEConfig{Transforms: 2, Hidden: 16})
	if _, err := npe.Train(theta, x, sbi.TrainConfig{Epochs: 3, Seed: 1}); err != nil {
		fmt.Println(err)
		return
	}
	for _, xo := range [][]float64{{0.5, -1}, {6, 6}} {
		c, err := npe.CheckObservation(xo)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%v: outside %v, p = %.3f of %d held-back simulations\n", xo, c.Outside, c.PValue, c.Calibration)
	}
	// Output:
	// [0.5 -1]: outside false, p = 0.762 of 100 held-back simulations
	// [6 6]: outside true, p = 0.010 of 100 held-back simulations
}

// The health of MCMC chains: four chains of 200 draws, the first stuck away from the others.
func ExampleNewMCMCHealth() {
	rng := rand.New(rand.NewPCG(1, 1))
	chains := make([][][]float64, 4)
	for c := range chains {
		for range 200 {
			v := rng.NormFloat64()
			if c == 0 {
				v += 4
			}
			chains[c] = append(chains[c], []float64{v})
		}
	}
	h, err := sbi.NewMCMCHealth("user", chains)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("R̂ %.2f above its limit %.3f: %v\n", h.Rhat[0], h.RhatLimit, h.Rhat[0] > h.RhatLimit)
	// Output: R̂ 1.52 above its limit 1.011: true
}
