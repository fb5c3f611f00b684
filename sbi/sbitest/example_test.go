package sbitest_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/sbitest"
)

// An estimator's own tests call the suite with a constructor (here NRE, whose posterior
// log-density is unnormalized); each check is a subtest.
func ExampleTestEstimator() {
	_ = func(t *testing.T) {
		sbitest.TestEstimator(t, func(prior dist.Distribution) sbitest.Estimator {
			return sbi.NewNRE(prior, sbi.NREConfig{Hidden: []int{32, 32}})
		}, sbitest.Config{Unnormalized: true})
	}
}

// The suite's task has a closed-form posterior for every observation.
func ExampleNewGaussianLinear() {
	task := sbitest.NewGaussianLinear(1)
	post := task.Posterior([]float64{0.3, -0.2, 0.4})
	mean, cov := post.Mean(), post.Covariance()
	fmt.Printf("mean %.3f, sd (%.3f, %.3f), correlation %.3f\n", mean,
		math.Sqrt(cov.At(0, 0)), math.Sqrt(cov.At(1, 1)), cov.At(0, 1)/math.Sqrt(cov.At(0, 0)*cov.At(1, 1)))
	// Output:
	// mean [0.426 -0.133], sd (0.375, 0.387), correlation -0.459
}
