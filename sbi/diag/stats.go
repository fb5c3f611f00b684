package diag

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// KSUniformPValue is the p-value of the one-sample Kolmogorov–Smirnov test of u against
// Uniform(0, 1): D = sup |F_n(t) − t|, with the asymptotic Kolmogorov distribution and
// Stephens' small-sample correction λ = (√n + 0.12 + 0.11/√n)·D
// (Stephens 1970; Press et al., Numerical Recipes §14.3).
func KSUniformPValue(u []float64) float64 {
	n := len(u)
	if n == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), u...)
	sort.Float64s(s)
	var d float64
	for i, v := range s {
		d = math.Max(d, math.Max(float64(i+1)/float64(n)-v, v-float64(i)/float64(n)))
	}
	sn := math.Sqrt(float64(n))
	return kolmogorovQ((sn + 0.12 + 0.11/sn) * d)
}

// kolmogorovQ is Q(λ) = 2 Σ_{k≥1} (−1)^{k−1} exp(−2k²λ²), the survival function of the
// Kolmogorov distribution.
func kolmogorovQ(lambda float64) float64 {
	if lambda < 0.2 {
		return 1
	}
	var sum float64
	sign := 1.0
	for k := 1; k <= 100; k++ {
		term := sign * 2 * math.Exp(-2*float64(k*k)*lambda*lambda)
		sum += term
		if math.Abs(term) < 1e-12*math.Abs(sum) {
			break
		}
		sign = -sign
	}
	return math.Min(math.Max(sum, 0), 1)
}

// chiSquareUniform tests counts in equal-probability bins against the uniform distribution:
// X² = Σ (O − E)²/E with E = n/bins, and its p-value under χ²(bins − 1).
func chiSquareUniform(counts []int) (stat, p float64) {
	n := 0
	for _, c := range counts {
		n += c
	}
	e := float64(n) / float64(len(counts))
	for _, c := range counts {
		d := float64(c) - e
		stat += d * d / e
	}
	return stat, distuv.ChiSquared{K: float64(len(counts) - 1)}.Survival(stat)
}
