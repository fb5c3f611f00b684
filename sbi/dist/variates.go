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

// MaxPoissonLambda is the largest mean Poisson accepts: 10¹⁵, beyond which draws near λ are no
// longer exact integers in float64; where an int has 32 bits, MaxInt/2, so that every draw (λ
// plus a few √λ) fits in the int Poisson returns.
const MaxPoissonLambda = min(1e15, math.MaxInt/2)

// Poisson draws from Poisson(lambda) in time that does not grow with lambda. For lambda < 10 it
// counts unit-rate exponential arrivals before lambda (at most about ten draws); for lambda ≥ 10
// it uses the transformed rejection method with squeeze, PTRS (W. Hörmann, "The transformed
// rejection method for generating Poisson random variables", Insurance: Mathematics and
// Economics 12, 1993, 39–45), which accepts about 9 proposals in 10 at any lambda. Both are
// exact. It panics unless 0 ≤ lambda ≤ MaxPoissonLambda.
func Poisson(rng *rand.Rand, lambda float64) int {
	if !(lambda >= 0 && lambda <= MaxPoissonLambda) {
		panic(fmt.Sprintf("dist: Poisson: lambda = %v, expected 0 ≤ lambda ≤ %g", lambda, MaxPoissonLambda))
	}
	if lambda < 10 {
		k := 0
		for t := rng.ExpFloat64(); t < lambda; t += rng.ExpFloat64() {
			k++
		}
		return k
	}
	return poissonPTRS(rng, lambda)
}

// poissonPTRS is algorithm PTRS of Hörmann (1993) for lambda ≥ 10. With U uniform on
// (−½, ½), V uniform on (0, 1) and u_s = ½ − |U|, the proposal is
//
//	k = ⌊(2a/u_s + b)·U + λ + 0.43⌋,  b = 0.931 + 2.53√λ,  a = −0.059 + 0.02483·b,
//
// accepted at once when u_s ≥ 0.07 and V ≤ v_r = 0.9277 − 3.6224/(b − 2) (the squeeze),
// rejected when k < 0 or (u_s < 0.013 and V > u_s), and otherwise accepted when
//
//	log(V·α⁻¹ / (a/u_s² + b)) ≤ log p(k) = k log λ − λ − log k!,  α⁻¹ = 1.1239 + 1.1328/(b − 3.4).
func poissonPTRS(rng *rand.Rand, lambda float64) int {
	b := 0.931 + 2.53*math.Sqrt(lambda)
	a := -0.059 + 0.02483*b
	invAlpha := 1.1239 + 1.1328/(b-3.4)
	vr := 0.9277 - 3.6224/(b-2)
	for {
		u := rng.Float64() - 0.5
		v := rng.Float64()
		us := 0.5 - math.Abs(u)
		k := math.Floor((2*a/us+b)*u + lambda + 0.43)
		if us >= 0.07 && v <= vr {
			return int(k)
		}
		if k < 0 || (us < 0.013 && v > us) {
			continue
		}
		if math.Log(v*invAlpha/(a/(us*us)+b)) <= poissonLogPMF(k, lambda) {
			return int(k)
		}
	}
}

// poissonLogPMF is log p(k) = k log λ − λ − log k! for an integer k ≥ 0. For k ≥ 15 it is
// evaluated as −[k·log(k/λ) − (k − λ)] − ½ log(2πk) − δ(k), with Stirling's remainder
// δ(k) = log k! − (k log k − k + ½ log(2πk)) = 1/(12k) − 1/(360k³) + 1/(1260k⁵) − …, so that
// no two terms of size k log k cancel (they would lose all digits at λ ≈ 10¹⁵); the bracket is
// k·log1p((k−λ)/λ) − (k − λ), of the size of the result.
func poissonLogPMF(k, lambda float64) float64 {
	if k < 15 {
		lg, _ := math.Lgamma(k + 1)
		return k*math.Log(lambda) - lambda - lg
	}
	d := k - lambda
	k2 := k * k
	stirling := (1.0/12 - (1.0/360-1/(1260*k2))/k2) / k
	return -(k*math.Log1p(d/lambda) - d) - 0.5*math.Log(2*math.Pi*k) - stirling
}
