package sbi

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/sbi/dist"
	"gonum.org/v1/gonum/mat"
)

// analyticPosterior returns a RatioPosterior whose normalized density is N(mean, cov): the
// "ratio" is the Gaussian log-density minus the prior's.
func analyticPosterior(prior dist.Distribution, mean []float64, cov *mat.SymDense, s SamplerConfig) *RatioPosterior {
	target := dist.NewMultivariateNormal(mean, cov)
	lr := func(theta *mat.Dense) []float64 {
		a, b := target.LogProb(theta), prior.LogProb(theta)
		for i := range a {
			a[i] -= b[i]
		}
		return a
	}
	return newRatioPosterior("test", nil, prior, lr, nil, s)
}

// TestSamplersAgainstGaussian checks the slice sampler (4 correlated parameters), the grid
// and importance sampling (2 parameters) against the moments of a known Gaussian posterior.
func TestSamplersAgainstGaussian(t *testing.T) {
	cov4 := mat.NewSymDense(4, []float64{
		1, 0.8, 0, 0,
		0.8, 1, 0, 0,
		0, 0, 0.25, -0.1,
		0, 0, -0.1, 0.25,
	})
	mean4 := []float64{1, -1, 0.5, 0}
	cov2 := mat.NewSymDense(2, []float64{0.04, 0.03, 0.03, 0.09})
	mean2 := []float64{0.2, -0.3}
	cases := []struct {
		name  string
		post  *RatioPosterior
		mean  []float64
		cov   *mat.SymDense
		slack float64 // effective-sample-size factor: MCMC draws are correlated
	}{
		{"mcmc", analyticPosterior(dist.NewStandardNormal(4), mean4, cov4, SamplerConfig{Method: "mcmc"}), mean4, cov4, 4},
		{"grid", analyticPosterior(dist.NewUniformCube(-2, 2, 2), mean2, cov2, SamplerConfig{}), mean2, cov2, 1},
		{"importance", analyticPosterior(dist.NewUniformCube(-2, 2, 2), mean2, cov2, SamplerConfig{Method: "importance"}), mean2, cov2, 1.5},
	}
	for _, c := range cases {
		const n = 4000
		s, err := c.post.SampleContext(context.Background(), rand.New(rand.NewPCG(1, 9)), n)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for j := range c.mean {
			sd := math.Sqrt(c.cov.At(j, j))
			// 4 Monte Carlo standard errors with the sample size divided by slack² (the
			// autocorrelation of slice-sampling chains thinned by 5, duplicates of resampling).
			neff := n / (c.slack * c.slack)
			m, v := meanStd(s, j)
			if tol := 4 * sd / math.Sqrt(neff); math.Abs(m-c.mean[j]) > tol {
				t.Errorf("%s: mean θ%d = %.4f, expected %.4f ± %.4f", c.name, j, m, c.mean[j], tol)
			}
			if tol := 4 * sd / math.Sqrt(2*neff); math.Abs(v-sd) > tol+0.01*sd {
				t.Errorf("%s: sd θ%d = %.4f, expected %.4f ± %.4f", c.name, j, v, sd, tol)
			}
		}
		if c.name == "mcmc" {
			// The correlation of θ0 and θ1 (0.8) needs the chains to move along the ridge.
			m0, s0 := meanStd(s, 0)
			m1, s1 := meanStd(s, 1)
			var r float64
			for i := 0; i < n; i++ {
				r += (s.At(i, 0) - m0) * (s.At(i, 1) - m1) / (s0 * s1 * (n - 1))
			}
			if math.Abs(r-0.8) > 0.05 {
				t.Errorf("mcmc: correlation of θ0, θ1 = %.3f, expected 0.8 ± 0.05", r)
			}
		}
	}
}
