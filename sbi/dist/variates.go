package dist

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// StdGamma draws from Gamma(k, 1) (see sampleGamma). It panics unless k > 0.
func StdGamma(rng *rand.Rand, k float64) float64 {
	if !(k > 0) || math.IsInf(k, 1) {
		panic(fmt.Sprintf("dist: StdGamma: shape %v, expected a finite value > 0", k))
	}
	return sampleGamma(rng, k)
}

// Binomial draws from Binomial(n, p). For n·min(p,1−p) < 30 it inverts the CDF (sequential
// search from 0, the BINV algorithm of Kachitvichyanukul and Schmeiser, 1988); for larger
// counts it first splits n with Beta-distributed order statistics (Knuth, TAOCP vol. 2,
// §3.4.1F): with a = 1 + ⌊n/2⌋, b = n + 1 − a and X ~ Beta(a, b), the count is
// Binomial(a−1, p/X) if X ≥ p, else a + Binomial(b−1, (p−X)/(1−X)). Both are exact.
// It panics unless n ≥ 0 and 0 ≤ p ≤ 1.
func Binomial(rng *rand.Rand, n int, p float64) int {
	if n < 0 || !(p >= 0 && p <= 1) {
		panic(fmt.Sprintf("dist: Binomial: n = %d, p = %v, expected n ≥ 0 and 0 ≤ p ≤ 1", n, p))
	}
	count := 0
	for {
		if n == 0 || p == 0 {
			return count
		}
		if p == 1 {
			return count + n
		}
		if float64(n)*math.Min(p, 1-p) < 30 {
			return count + binomialInversion(rng, n, p)
		}
		a := 1 + n/2
		b := n + 1 - a
		ga, gb := sampleGamma(rng, float64(a)), sampleGamma(rng, float64(b))
		x := ga / (ga + gb)
		if x >= p {
			n, p = a-1, p/x
		} else {
			count += a
			n, p = b-1, (p-x)/(1-x)
		}
	}
}

func binomialInversion(rng *rand.Rand, n int, p float64) int {
	flip := p > 0.5
	if flip {
		p = 1 - p
	}
	q := 1 - p
	s := p / q
	a := float64(n+1) * s
	r := math.Pow(q, float64(n))
	u := rng.Float64()
	x := 0
	for u > r && x < n {
		u -= r
		x++
		r *= a/float64(x) - s
	}
	if flip {
		return n - x
	}
	return x
}

// Poisson draws from Poisson(lambda) by counting unit-rate exponential arrivals before lambda
// (exact; meant for small lambda, its cost grows with lambda). It panics unless 0 ≤ lambda ≤ 1e4.
func Poisson(rng *rand.Rand, lambda float64) int {
	if !(lambda >= 0 && lambda <= 1e4) {
		panic(fmt.Sprintf("dist: Poisson: lambda = %v, expected 0 ≤ lambda ≤ 1e4", lambda))
	}
	k := 0
	for t := rng.ExpFloat64(); t < lambda; t += rng.ExpFloat64() {
		k++
	}
	return k
}
