package variational_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/sbi/task"
	"github.com/gosbi/gosbi/sbi/variational"
)

// An amortized Gaussian posterior trained by the ELBO on CANVI's ARCH model covers less than
// its nominal level on fresh simulations, which is what conformal calibration (calib) corrects.
func ExampleTrain() {
	arch := task.ARCH()
	q := variational.MustTrain(arch, variational.Config{Objective: variational.ELBO, Steps: 1000, Seed: 1})
	rng := rand.New(rand.NewPCG(1, 2))
	theta := arch.Prior().Sample(rng, 300)
	x := arch.Simulate(rng, theta)
	cov := diag.ExpectedCoverage(q, theta, x, []float64{0.9})
	fmt.Println(q)
	fmt.Println("90% HPD regions cover less than 80% of fresh pairs:", cov.Coverage[0] < 0.8)
	// Output:
	// amortized full-covariance Gaussian q(θ|x) trained by ELBO (1000 steps)
	// 90% HPD regions cover less than 80% of fresh pairs: true
}
