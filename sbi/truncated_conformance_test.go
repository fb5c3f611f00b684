package sbi

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/dist/disttest"
)

// TestTruncatedPriorConformance runs the conformance suite of dist.Distribution on truncated
// priors: a box and a Gaussian prior, each cut to the region of a correlated Gaussian
// "posterior" above its log density at 1.5 standard deviations. LogProb is not renormalized
// (the documented choice), so the suite's normalization check is left out.
func TestTruncatedPriorConformance(t *testing.T) {
	post := dist.NewMultivariateNormal([]float64{0.3, -0.2}, mat.NewSymDense(2, []float64{0.25, 0.1, 0.1, 0.16}))
	threshold := -1.5*1.5/2 - math.Log(2*math.Pi) - 0.5*math.Log(0.25*0.16-0.01)
	for _, tc := range []struct {
		name  string
		prior dist.Distribution
	}{
		{"box", dist.NewUniformCube(-1, 1, 2)},
		{"normal", dist.NewNormal([]float64{0, 0}, []float64{1, 0.5})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp := &TruncatedPrior{prior: tc.prior, post: post, Threshold: threshold, Epsilon: 0.1, floor: 1e-3}
			disttest.TestDistribution(t, tp, disttest.Config{Unnormalized: true})
		})
	}
}
