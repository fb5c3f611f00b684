// Package mcmc holds the convergence diagnostics of Markov chain Monte Carlo that package sbi
// reports with its samples and package diag exposes: the rank-normalized split R̂ and the bulk
// and tail effective sample sizes of Vehtari, Gelman, Simpson, Carpenter and Bürkner,
// "Rank-normalization, folding, and localization: an improved R̂ for assessing convergence of
// MCMC", Bayesian Analysis 16(2), 2021 (cited below as V21).
//
// A chain is a []float64 of draws of one scalar quantity in the order the sampler produced
// them; every function takes the draws of several chains, all of the same length. Chains are
// split in half before anything is computed (V21 §4.2), so m chains of n draws are analysed as
// 2m chains of ⌊n/2⌋ draws (the middle draw of an odd chain is left out).
package mcmc

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/dsp/fourier"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gosbi/gosbi/sbi/internal/quantile"
)

// MinDraws is the shortest chain the diagnostics accept: each half of a split chain needs at
// least 2 draws for a within-chain variance.
const MinDraws = 4

// Check returns an error unless chains holds at least one chain, all chains have the same
// length of at least MinDraws draws, and every draw is finite.
func Check(chains [][]float64) error {
	if len(chains) == 0 {
		return fmt.Errorf("no chains: expected at least one chain of at least %d draws", MinDraws)
	}
	n := len(chains[0])
	for c, ch := range chains {
		if len(ch) != n {
			return fmt.Errorf("chain %d has %d draws and chain 0 has %d: all chains need the same length", c, len(ch), n)
		}
		for i, v := range ch {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("chain %d, draw %d is %v: the diagnostics need finite draws", c, i, v)
			}
		}
	}
	if n < MinDraws {
		return fmt.Errorf("chains of %d draws: the split diagnostics need at least %d draws per chain", n, MinDraws)
	}
	return nil
}

// Split cuts every chain in half (V21 §4.2): the first ⌊n/2⌋ and the last ⌊n/2⌋ draws.
func Split(chains [][]float64) [][]float64 {
	out := make([][]float64, 0, 2*len(chains))
	for _, ch := range chains {
		h := len(ch) / 2
		out = append(out, ch[:h], ch[len(ch)-h:])
	}
	return out
}

// RankNormalize replaces every draw by the normal score of its rank among all draws of all
// chains (V21 eq. 14): z = Φ⁻¹((r − 3/8)/(S + 1/4)), with r the rank (ties get the average of
// their ranks) and S the number of draws.
func RankNormalize(chains [][]float64) [][]float64 {
	type item struct {
		v    float64
		c, i int
	}
	var all []item
	for c, ch := range chains {
		for i, v := range ch {
			all = append(all, item{v, c, i})
		}
	}
	sort.Slice(all, func(a, b int) bool { return all[a].v < all[b].v })
	S := float64(len(all))
	out := make([][]float64, len(chains))
	for c, ch := range chains {
		out[c] = make([]float64, len(ch))
	}
	for lo := 0; lo < len(all); {
		hi := lo + 1
		for hi < len(all) && all[hi].v == all[lo].v {
			hi++
		}
		r := float64(lo+hi+1) / 2 // average of the 1-based ranks lo+1 … hi
		z := distuv.UnitNormal.Quantile((r - 3.0/8) / (S + 0.25))
		for k := lo; k < hi; k++ {
			out[all[k].c][all[k].i] = z
		}
		lo = hi
	}
	return out
}

// Fold returns |θ − median| of every draw, the median taken over all draws (V21 §4.1).
func Fold(chains [][]float64) [][]float64 {
	med := quantile.Sorted(pooledSorted(chains), 0.5)
	out := make([][]float64, len(chains))
	for c, ch := range chains {
		out[c] = make([]float64, len(ch))
		for i, v := range ch {
			out[c][i] = math.Abs(v - med)
		}
	}
	return out
}

func pooledSorted(chains [][]float64) []float64 {
	var s []float64
	for _, ch := range chains {
		s = append(s, ch...)
	}
	sort.Float64s(s)
	return s
}

// Rhat is the potential scale reduction factor of chains as given, not split (V21 eq. 3–4):
// with n draws per chain, W the mean of the within-chain variances and B/n the variance of the
// chain means,
//
//	var⁺ = (n−1)/n·W + B/n,  R̂ = √(var⁺/W).
//
// It is NaN when every chain is constant.
func Rhat(chains [][]float64) float64 {
	n := float64(len(chains[0]))
	W, Bn := withinBetween(chains)
	if !(W > 0) {
		return math.NaN()
	}
	return math.Sqrt(((n-1)/n*W + Bn) / W)
}

// withinBetween returns W, the mean within-chain variance (denominator n − 1), and B/n, the
// variance of the chain means (denominator m − 1; 0 for one chain).
func withinBetween(chains [][]float64) (W, Bn float64) {
	m := len(chains)
	means := make([]float64, m)
	for c, ch := range chains {
		var s float64
		for _, v := range ch {
			s += v
		}
		means[c] = s / float64(len(ch))
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
	return W, Bn
}

// SplitRhat is the rank-normalized split R̂ of V21 §4.3: the larger of the R̂ of the
// rank-normalized split chains (bulk) and of the rank-normalized folded split chains (tails).
// It is 1 for chains that mixed, and above 1.01 is V21's threshold for trouble. NaN when the
// chains are constant.
func SplitRhat(chains [][]float64) float64 {
	s := Split(chains)
	bulk := Rhat(RankNormalize(s))
	tail := Rhat(RankNormalize(Fold(s)))
	if math.IsNaN(bulk) || math.IsNaN(tail) {
		return math.NaN()
	}
	return math.Max(bulk, tail)
}

// ESS is the effective sample size of the chains as given (not split, not normalized), by
// V21 eq. 10: S/τ̂ with S the number of draws and τ̂ = −1 + 2·Σ_{k=0}^{K} P̂_k, where
// P̂_k = ρ̂_{2k} + ρ̂_{2k+1} are Geyer's (1992) sums of consecutive autocorrelations, taken while
// positive and made non-increasing (the initial monotone sequence), and
//
//	ρ̂_t = 1 − (W − mean over chains of the lag-t autocovariance)/var⁺
//
// combines the chains' autocovariances (computed by FFT, each divided by the chain length)
// with the between-chain variance in var⁺ (V21 eq. 9). τ̂ is bounded below by 1/log₁₀ S, so
// that the ESS of anti-correlated chains stays below S·log₁₀ S (as in Stan). NaN when every
// chain is constant.
func ESS(chains [][]float64) float64 {
	m, n := len(chains), len(chains[0])
	S := float64(m * n)
	W, Bn := withinBetween(chains)
	if !(W > 0) {
		return math.NaN()
	}
	varPlus := float64(n-1)/float64(n)*W + Bn
	acov := meanAutocovariance(chains)
	rho := func(t int) float64 {
		if t == 0 {
			return 1
		}
		if t >= n {
			return 0
		}
		return 1 - (W-acov[t])/varPlus
	}
	var sum float64
	prev := math.Inf(1)
	for k := 0; 2*k < n; k++ {
		p := rho(2*k) + rho(2*k+1)
		if p <= 0 {
			break
		}
		p = math.Min(p, prev) // initial monotone sequence
		sum += p
		prev = p
	}
	tau := math.Max(-1+2*sum, 1/math.Log10(S))
	return S / tau
}

// meanAutocovariance returns, for every lag t < n, the mean over chains of
// (1/n)·Σ_i (θ_i − θ̄)(θ_{i+t} − θ̄), each chain centred on its own mean. It uses an FFT of
// the zero-padded chain (length ≥ 2n, so the circular correlation is the linear one).
func meanAutocovariance(chains [][]float64) []float64 {
	n := len(chains[0])
	size := 1
	for size < 2*n {
		size *= 2
	}
	fft := fourier.NewFFT(size)
	buf := make([]float64, size)
	coef := make([]complex128, size/2+1)
	out := make([]float64, n)
	for _, ch := range chains {
		var mean float64
		for _, v := range ch {
			mean += v
		}
		mean /= float64(n)
		for i := range buf {
			buf[i] = 0
		}
		for i, v := range ch {
			buf[i] = v - mean
		}
		fft.Coefficients(coef, buf)
		for k, c := range coef {
			coef[k] = complex(real(c)*real(c)+imag(c)*imag(c), 0)
		}
		fft.Sequence(buf, coef) // unnormalized: size × the circular autocorrelation
		for t := 0; t < n; t++ {
			out[t] += buf[t] / float64(size) / float64(n) / float64(len(chains))
		}
	}
	return out
}

// ESSBulk is the bulk effective sample size of V21 §4.3: the ESS of the rank-normalized split
// chains. It measures how well the chains estimate the centre of the distribution (means,
// medians). V21 recommend at least 100 per chain.
func ESSBulk(chains [][]float64) float64 {
	return ESS(RankNormalize(Split(chains)))
}

// ESSTail is the tail effective sample size of V21 §4.3: the smaller ESS of the indicators
// 1[θ ≤ q₀.₀₅] and 1[θ ≤ q₀.₉₅] on the split chains, with the quantiles of all draws. It
// measures how well the chains estimate the 5% and 95% quantiles (the ends of a 90% interval).
func ESSTail(chains [][]float64) float64 {
	s := Split(chains)
	sorted := pooledSorted(s)
	out := math.Inf(1)
	for _, p := range []float64{0.05, 0.95} {
		q := quantile.Sorted(sorted, p)
		ind := make([][]float64, len(s))
		for c, ch := range s {
			ind[c] = make([]float64, len(ch))
			for i, v := range ch {
				if v <= q {
					ind[c][i] = 1
				}
			}
		}
		out = math.Min(out, ESS(ind))
	}
	return out
}

// RhatSD is the standard deviation of the split R̂ of chains that are independent draws of
// one distribution, m chains of n draws: after splitting, 2m chains of h = ⌊n/2⌋ draws, and
// to first order R̂ − 1 ≈ ((B/h)/W·h − 1)/(2h) with (B/h)/W·h ~ χ²_{2m−1}/(2m−1), so
//
//	SD(R̂) ≈ 1/(h·√(2(2m−1))).
//
// It is the scale on which the noise of R̂ from short chains, rather than poor mixing, can
// exceed V21's threshold of 1.01.
func RhatSD(chains, draws int) float64 {
	h := float64(draws / 2)
	return 1 / (h * math.Sqrt(2*float64(2*chains-1)))
}
