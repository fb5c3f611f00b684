package certify

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
)

// The conjugate model of the synthetic cases: θ ~ N(0, 1), x | θ ~ N(θ, 1), whose posterior is
// N(x/2, 1/2). scaledPosterior replaces its standard deviation √½ by s·√½: s < 1 is
// over-confident, s > 1 conservative, s = 1 exact. No training: the posteriors are dist.Normal.

type gaussSimulator struct{}

func (gaussSimulator) DataDim() int { return 1 }

func (gaussSimulator) SimulateBatch(rng *rand.Rand, theta, x *mat.Dense) {
	n, _ := theta.Dims()
	for i := range n {
		x.Set(i, 0, theta.At(i, 0)+rng.NormFloat64())
	}
}

func gaussPrior() dist.Distribution { return dist.NewStandardNormal(1) }

type scaledPosterior struct{ s float64 }

func (e scaledPosterior) Posterior(x []float64) sbi.Posterior {
	return dist.NewNormal([]float64{x[0] / 2}, []float64{e.s * math.Sqrt(0.5)})
}

func (e scaledPosterior) LogProbPairs(theta, x *mat.Dense) []float64 {
	n, _ := theta.Dims()
	out := make([]float64, n)
	sd := e.s * math.Sqrt(0.5)
	for i := range n {
		z := (theta.At(i, 0) - x.At(i, 0)/2) / sd
		out[i] = -0.5*z*z - math.Log(sd) - 0.5*math.Log(2*math.Pi)
	}
	return out
}

// exactCoverage is the expected coverage at level L of the HPD regions of scaledPosterior{s} as
// diag.RankCoverage measures it with m draws per pair. With w = (θ* − x/2)/√½ ~ N(0, 1), a draw
// of the scaled posterior is less dense than θ* with probability p(w) = 2(1 − Φ(|w|/s)); the
// randomized rank is (B + U)/(m + 1) with B ~ Binomial(m, p) and U ~ Uniform(0, 1), and θ* is
// covered when it is ≥ 1 − L, i.e. B ≥ k + 1, or B = k and U ≥ f, where k + f = (1 − L)(m + 1).
// The expectation over |w| (density 2φ) is taken by Simpson's rule on [0, 9]. As m → ∞ this
// tends to 2Φ(s·Φ⁻¹((1 + L)/2)) − 1.
func exactCoverage(s, level float64, m int) float64 {
	c := (1 - level) * float64(m+1)
	k := math.Floor(c)
	f := c - k
	std := distuv.UnitNormal
	g := func(w float64) float64 {
		p := 2 * (1 - std.CDF(w/s))
		b := distuv.Binomial{N: float64(m), P: p}
		var cov float64
		switch {
		case p <= 0:
			cov = 0
			if k < 0 {
				cov = 1
			}
			if k == 0 {
				cov = 1 - f
			}
		default:
			cov = (1 - b.CDF(k)) + math.Exp(b.LogProb(k))*(1-f)
		}
		return cov * 2 * std.Prob(w)
	}
	const steps = 900
	h := 9.0 / steps
	sum := g(0) + g(9)
	for i := 1; i < steps; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		sum += w * g(float64(i)*h)
	}
	return sum * h / 3
}

// maxDeviation is max over levels of (L − coverage) (narrow) or (coverage − L) (wide).
func maxDeviation(s float64, levels []float64, m int, narrow bool) float64 {
	d := math.Inf(-1)
	for _, l := range levels {
		c := exactCoverage(s, l, m)
		if narrow {
			d = max(d, l-c)
		} else {
			d = max(d, c-l)
		}
	}
	return d
}

// scaleFor finds by bisection the scale whose largest deviation on the given side is dev.
func scaleFor(dev float64, levels []float64, m int, narrow bool) float64 {
	lo, hi := 1.0, 3.0
	if narrow {
		lo, hi = 0.2, 1.0
	}
	for range 50 {
		mid := (lo + hi) / 2
		d := maxDeviation(mid, levels, m, narrow)
		if (d > dev) == narrow {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}
