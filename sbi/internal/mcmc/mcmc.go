// Package mcmc computes the convergence diagnostics of Markov chain Monte Carlo that package
// sbi reports with its MCMC draws: the rank-normalized split R̂ and the bulk effective sample
// size of Vehtari, Gelman, Simpson, Carpenter and Bürkner, "Rank-normalization, folding, and
// localization: an improved R̂ for assessing convergence of MCMC", Bayesian Analysis 16(2),
// 2021 (V21 below).
//
// Every function takes the draws of one scalar quantity from m chains, chains[c][i] the i-th
// draw of chain c, all chains of the same length n ≥ MinDraws and every draw finite (Check).
// Split cuts each chain into its first and last halves (V21 §4.2), so that a chain that drifts
// disagrees with itself.
package mcmc

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// MinDraws is the shortest chain the split diagnostics accept: each half needs two draws.
const MinDraws = 4

// Check returns an error unless chains holds at least one chain, all of one length of at least
// MinDraws, with finite draws.
func Check(chains [][]float64) error {
	if len(chains) == 0 {
		return fmt.Errorf("mcmc: no chains")
	}
	n := len(chains[0])
	if n < MinDraws {
		return fmt.Errorf("mcmc: chains of %d draws, the split diagnostics need at least %d", n, MinDraws)
	}
	for c, ch := range chains {
		if len(ch) != n {
			return fmt.Errorf("mcmc: chain %d has %d draws, chain 0 has %d", c, len(ch), n)
		}
		for i, v := range ch {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("mcmc: chain %d, draw %d is %v", c, i, v)
			}
		}
	}
	return nil
}

// Split returns the 2m half-chains of ⌊n/2⌋ draws (the middle draw of an odd chain left out).
func Split(chains [][]float64) [][]float64 {
	out := make([][]float64, 0, 2*len(chains))
	for _, ch := range chains {
		h := len(ch) / 2
		out = append(out, ch[:h], ch[len(ch)-h:])
	}
	return out
}

// RankNormalize replaces every draw by Φ⁻¹((r − 3/8)/(S + 1/4)), r its rank among all S draws
// (ties share their average rank): V21 eq. 14.
func RankNormalize(chains [][]float64) [][]float64 {
	type ref struct{ c, i int }
	var all []ref
	for c, ch := range chains {
		for i := range ch {
			all = append(all, ref{c, i})
		}
	}
	val := func(r ref) float64 { return chains[r.c][r.i] }
	sort.Slice(all, func(a, b int) bool { return val(all[a]) < val(all[b]) })
	out := make([][]float64, len(chains))
	for c, ch := range chains {
		out[c] = make([]float64, len(ch))
	}
	S := float64(len(all))
	for lo := 0; lo < len(all); {
		hi := lo
		for hi < len(all) && val(all[hi]) == val(all[lo]) {
			hi++
		}
		rank := float64(lo+1+hi) / 2 // mean of the ranks lo+1 … hi
		z := distuv.UnitNormal.Quantile((rank - 0.375) / (S + 0.25))
		for _, r := range all[lo:hi] {
			out[r.c][r.i] = z
		}
		lo = hi
	}
	return out
}

// fold returns |θ − median of all draws| (V21 §4.1): its R̂ sees chains that differ in scale.
func fold(chains [][]float64) [][]float64 {
	var all []float64
	for _, ch := range chains {
		all = append(all, ch...)
	}
	sort.Float64s(all)
	med := all[len(all)/2]
	if len(all)%2 == 0 {
		med = (all[len(all)/2-1] + all[len(all)/2]) / 2
	}
	out := make([][]float64, len(chains))
	for c, ch := range chains {
		out[c] = make([]float64, len(ch))
		for i, v := range ch {
			out[c][i] = math.Abs(v - med)
		}
	}
	return out
}

// moments returns the chains' means, W the mean of their variances (denominator n − 1) and
// B/n the variance of their means (denominator m − 1; 0 for one chain).
func moments(chains [][]float64) (means []float64, W, Bn float64) {
	m := len(chains)
	means = make([]float64, m)
	for c, ch := range chains {
		for _, v := range ch {
			means[c] += v / float64(len(ch))
		}
		var ss float64
		for _, v := range ch {
			ss += (v - means[c]) * (v - means[c])
		}
		W += ss / float64(len(ch)-1) / float64(m)
	}
	if m > 1 {
		var mu float64
		for _, v := range means {
			mu += v / float64(m)
		}
		for _, v := range means {
			Bn += (v - mu) * (v - mu) / float64(m-1)
		}
	}
	return means, W, Bn
}

// Rhat is the potential scale reduction of the chains as given (V21 eq. 3–4):
// R̂ = √(var⁺/W), var⁺ = (n−1)/n·W + B/n. NaN when every chain is constant.
func Rhat(chains [][]float64) float64 {
	n := float64(len(chains[0]))
	_, W, Bn := moments(chains)
	if !(W > 0) {
		return math.NaN()
	}
	return math.Sqrt(((n-1)/n*W + Bn) / W)
}

// SplitRhat is the rank-normalized split R̂ of V21 §4.3: the larger of the R̂ of the
// rank-normalized split chains and of their folded version. Mixed chains give 1; V21 flag
// values above 1.01. NaN when the chains are constant.
func SplitRhat(chains [][]float64) float64 {
	s := Split(chains)
	bulk, tail := Rhat(RankNormalize(s)), Rhat(RankNormalize(fold(s)))
	if math.IsNaN(bulk) || math.IsNaN(tail) {
		return math.NaN()
	}
	return math.Max(bulk, tail)
}

// ESS is the effective sample size of the chains as given, V21 eq. 10: S/τ̂ with S the number
// of draws and τ̂ = −1 + 2·Σₖ P̂ₖ, P̂ₖ = ρ̂₂ₖ + ρ̂₂ₖ₊₁ summed while positive and made
// non-increasing (Geyer's initial monotone sequence), where
//
//	ρ̂ₜ = 1 − (W − mean over chains of the lag-t autocovariance)/var⁺
//
// (V21 eq. 9; each autocovariance divided by n). The autocovariances are computed lag by lag
// only as far as the sum runs. τ̂ is bounded below by 1/log₁₀ S, as in Stan. NaN when every
// chain is constant.
func ESS(chains [][]float64) float64 {
	m, n := len(chains), len(chains[0])
	S := float64(m * n)
	means, W, Bn := moments(chains)
	if !(W > 0) {
		return math.NaN()
	}
	varPlus := float64(n-1)/float64(n)*W + Bn
	rho := func(t int) float64 {
		if t == 0 {
			return 1
		}
		if t >= n {
			return 0
		}
		var acov float64
		for c, ch := range chains {
			var s float64
			for i := 0; i+t < n; i++ {
				s += (ch[i] - means[c]) * (ch[i+t] - means[c])
			}
			acov += s / float64(n) / float64(m)
		}
		return 1 - (W-acov)/varPlus
	}
	var sum float64
	prev := math.Inf(1)
	for k := 0; 2*k < n; k++ {
		p := rho(2*k) + rho(2*k+1)
		if !(p > 0) {
			break
		}
		p = math.Min(p, prev)
		sum += p
		prev = p
	}
	tau := math.Max(-1+2*sum, 1/math.Log10(S))
	return S / tau
}

// ESSBulk is the bulk effective sample size of V21 §4.3: the ESS of the rank-normalized split
// chains, how well the draws estimate the centre of the distribution. V21 ask for at least 400
// (100 per chain for 4 chains).
func ESSBulk(chains [][]float64) float64 { return ESS(RankNormalize(Split(chains))) }

// RhatSD is the standard deviation of the split R̂ of m chains of n independent draws: after
// splitting, 2m chains of h = ⌊n/2⌋ draws, and to first order R̂ − 1 ≈ (χ²₂ₘ₋₁/(2m−1) − 1)/(2h),
// so SD ≈ 1/(h·√(2(2m−1))). It is the scale of the noise of R̂ from short chains.
func RhatSD(m, n int) float64 {
	h := float64(n / 2)
	return 1 / (h * math.Sqrt(2*float64(2*m-1)))
}
