package calib

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
)

// diagGauss is a Gaussian with diagonal covariance, an analytic sbi.Posterior for tests.
type diagGauss struct {
	mean, sd []float64
}

func (g diagGauss) Dim() int { return len(g.mean) }

func (g diagGauss) Sample(rng *rand.Rand, n int) *mat.Dense {
	out := mat.NewDense(n, len(g.mean), nil)
	for i := range n {
		row := out.RawRowView(i)
		for j := range row {
			row[j] = g.mean[j] + g.sd[j]*rng.NormFloat64()
		}
	}
	return out
}

func (g diagGauss) LogProb(theta *mat.Dense) []float64 {
	n, d := theta.Dims()
	if d != len(g.mean) {
		panic(fmt.Sprintf("diagGauss: theta has %d columns, want %d", d, len(g.mean)))
	}
	lp := make([]float64, n)
	for i := range n {
		row := theta.RawRowView(i)
		for j, v := range row {
			z := (v - g.mean[j]) / g.sd[j]
			lp[i] += -0.5*z*z - math.Log(g.sd[j]) - 0.5*math.Log(2*math.Pi)
		}
	}
	return lp
}

// linGaussModel is θ ~ N(0, s0² I), x | θ ~ N(θ, σ² I): the conjugate model with posterior
// N(w x, τ² I), w = s0²/(s0²+σ²), τ² = s0²σ²/(s0²+σ²).
type linGaussModel struct {
	d         int
	s0, sigma float64
}

func (m linGaussModel) prior() diagGauss { return isoGauss(make([]float64, m.d), m.s0) }

func (m linGaussModel) w() float64   { return m.s0 * m.s0 / (m.s0*m.s0 + m.sigma*m.sigma) }
func (m linGaussModel) tau() float64 { return m.s0 * m.sigma / math.Sqrt(m.s0*m.s0+m.sigma*m.sigma) }

func (m linGaussModel) simulate(rng *rand.Rand, theta *mat.Dense) *mat.Dense {
	n, d := theta.Dims()
	x := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			x.Set(i, j, theta.At(i, j)+m.sigma*rng.NormFloat64())
		}
	}
	return x
}

// gaussEstimator is an amortized Gaussian q(θ|x) = N(shrink·x + bias, (scale·τ)² I): the exact
// posterior for shrink = w, bias = 0, scale = 1; over-confident for scale < 1, under-confident
// for scale > 1.
type gaussEstimator struct {
	shrink, bias, sd float64
}

func (m linGaussModel) estimator(scale, bias float64) gaussEstimator {
	return gaussEstimator{shrink: m.w(), bias: bias, sd: scale * m.tau()}
}

func (e gaussEstimator) Posterior(x []float64) sbi.Posterior {
	mean := make([]float64, len(x))
	for j, v := range x {
		mean[j] = e.shrink*v + e.bias
	}
	return isoGauss(mean, e.sd)
}

func (e gaussEstimator) LogProbPairs(theta, x *mat.Dense) []float64 {
	n, d := theta.Dims()
	lp := make([]float64, n)
	for i := range n {
		for j := range d {
			z := (theta.At(i, j) - e.shrink*x.At(i, j) - e.bias) / e.sd
			lp[i] += -0.5*z*z - math.Log(e.sd) - 0.5*math.Log(2*math.Pi)
		}
	}
	return lp
}

func isoGauss(mean []float64, sd float64) diagGauss {
	s := make([]float64, len(mean))
	for i := range s {
		s[i] = sd
	}
	return diagGauss{mean: mean, sd: s}
}

func sortFloats(v []float64) { sort.Float64s(v) }
