package dist_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/dist/disttest"
)

// The distributions of package dist pass the conformance suite, at several parameters each.
func TestConformance(t *testing.T) {
	corr := mat.NewSymDense(3, []float64{2, 0.6, -0.3, 0.6, 1, 0.2, -0.3, 0.2, 0.5})
	for _, tc := range []struct {
		name string
		d    dist.Distribution
	}{
		{"BoxUniform", dist.NewBoxUniform([]float64{-1, 2}, []float64{3, 2.5})},
		{"BoxUniformWide", dist.NewUniformCube(-1e6, 1e6, 3)},
		{"Normal", dist.NewNormal([]float64{0.5, -2}, []float64{0.1, 3})},
		{"StandardNormal10", dist.NewStandardNormal(10)},
		{"MultivariateNormal", dist.NewMultivariateNormal([]float64{1, -2, 0.5}, corr)},
		{"MultivariateNormalStrong", dist.NewMultivariateNormal([]float64{0, 0}, mat.NewSymDense(2, []float64{1, 0.95, 0.95, 1}))},
		{"LogNormal", dist.NewLogNormal([]float64{math.Log(0.4), math.Log(0.125)}, []float64{0.5, 0.2})},
		{"LogNormalWide", dist.NewLogNormal([]float64{0}, []float64{2})},
		{"Gamma", dist.NewGamma([]float64{0.5, 3}, []float64{2, 0.5})},
		{"GammaExp", dist.NewGamma([]float64{1}, []float64{0.1})},
		{"Beta", dist.NewBeta([]float64{0.7, 2}, []float64{3, 1})},
		{"BetaU", dist.NewBeta([]float64{0.5, 5}, []float64{0.5, 5})},
		{"IndependentMixed", dist.NewIndependent(dist.NewNormal([]float64{1}, []float64{2}), dist.NewBoxUniform([]float64{0}, []float64{4}),
			dist.NewGamma([]float64{2}, []float64{1}), dist.NewBeta([]float64{2}, []float64{5}))},
		{"IndependentMVN", dist.NewIndependent(dist.NewMultivariateNormal([]float64{0, 1}, mat.NewSymDense(2, []float64{1, -0.7, -0.7, 1})), dist.NewLogNormal([]float64{0}, []float64{0.3}))},
		{"AffineNormal", dist.NewAffine(dist.NewStandardNormal(2), []float64{1, -1}, []float64{2, -0.5})},
		{"AffineBox", dist.NewAffine(dist.NewUniformCube(0, 1, 2), []float64{1, 0}, []float64{-2, 3})},
		{"ExpNormal", dist.NewExp(dist.NewNormal([]float64{-0.125, -3}, []float64{0.5, 0.5}))},
		{"ExpBox", dist.NewExp(dist.NewUniformCube(-4, 1, 2))},
		{"AffineGamma", dist.NewAffine(dist.NewGamma([]float64{2}, []float64{1}), []float64{3}, []float64{-1})},
	} {
		t.Run(tc.name, func(t *testing.T) { disttest.TestDistribution(t, tc.d, disttest.Config{}) })
	}
}
