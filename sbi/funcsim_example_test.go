package sbi_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
)

// A per-row simulator, a plain function as a notebook cell writes it, becomes the Simulator
// that sbi.Sequential, certify.Certify and SimulateBatch take.
func ExampleFuncSimulator() {
	// line simulates y = a + b·t + 0.3·ε at t = −1, 0, 1.
	line := func(rng *rand.Rand, theta []float64) []float64 {
		y := make([]float64, 3)
		for j := range y {
			y[j] = theta[0] + theta[1]*float64(j-1) + 0.3*rng.NormFloat64()
		}
		return y
	}
	sim := sbi.FuncSimulator(line, 3)
	// sim goes where a Simulator is expected, as in
	// sbi.Sequential(sbi.NewNPE(prior, sbi.NPEConfig{}), sim, xo, sbi.SequentialConfig{...})
	// or certify.Certify(prior, sim, observations, cfg).
	prior := dist.NewNormal([]float64{0, 0}, []float64{1, 1})
	rng := rand.New(rand.NewPCG(1, 2))
	s, err := sbi.SimulateBatch(rng, sim, prior.Sample(rng, 1000))
	if err != nil {
		fmt.Println(err)
		return
	}
	rows, cols := s.X.Dims()
	fmt.Printf("%d simulations of %d values, %d dropped\n", rows, cols, s.Dropped)
	// Output:
	// 1000 simulations of 3 values, 0 dropped
}
