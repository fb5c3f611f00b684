package diag

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"sync"

	"github.com/gosbi/gosbi/internal/text"
	"gonum.org/v1/gonum/stat/distuv"
)

// ECDFBandSims is the number of simulated rank sets from which ECDFBand calibrates its
// simultaneous band.
const ECDFBandSims = 2000

// ECDFResult is the SBC ranks of each parameter shown as the difference between their
// empirical distribution function and the uniform one, with a simultaneous band (Säilynoja,
// Bürkner and Vehtari, "Graphical test for discrete uniformity and its applications in
// goodness-of-fit evaluation and multiple sample comparison", Statistics and Computing 2022):
// the form bayesplot, ArviZ and sbi draw SBC in.
type ECDFResult struct {
	// Z are the evaluation points in (0, 1): fractional ranks k/(M+1) for M posterior draws,
	// at which the ECDF of uniform ranks has expectation exactly z.
	Z []float64
	// Diff[d][j] = F̂_d(Z[j]) − Z[j], where F̂_d(z) is the share of pairs whose rank r of
	// parameter d has r/(M+1) < z.
	Diff [][]float64
	// Lower and Upper bound the band of Diff, one for every parameter: when the ranks of all
	// parameters are uniform, every parameter's ECDF stays inside it at all points at once with
	// probability at least Confidence (up to the Monte Carlo error of its calibration, see
	// ECDFBand). With D parameters it is the simultaneous band of one parameter at confidence
	// 1 − (1 − Confidence)/D (Bonferroni's inequality over the parameters, whose ranks may
	// depend on each other in any way).
	Lower, Upper []float64
	Confidence   float64
	N            int // pairs
	Samples      int // M, the posterior draws behind each rank
	// Proposal is the estimator's TrainingProposal (sbi.NPE.TrainingProposal) when it was
	// trained on parameters drawn from a proposal, not from its prior (Sequential's later
	// rounds); "" otherwise. String and MIMEBundle then note, as the SBC result it comes from does, that over test pairs drawn from the
	// whole prior the check tests what the estimator was not trained for. The verdict does not
	// use it.
	Proposal string
}

// SBCECDF turns SBC ranks into the ECDF-difference view with its simultaneous band at
// confidence conf (0 means 0.95) over all parameters and points, evaluated at up to K = 100
// fractional ranks (all M of them when M < 100). With D parameters the band of each is
// calibrated on ECDFBandSims·D simulated rank sets, at most MaxECDFBandSims; each costs
// n + M + K steps (n uniform draws, a cumulative count over the M + 1 ranks, K look-ups), on
// one goroutine, so the band takes time in proportion to sims·(n + M + K) and memory of one
// float64 per simulation plus K·(n+1) tail probabilities. Up to 100 parameters as many
// simulations fall beyond the band as for one parameter (about 100 at 95%), so the Monte Carlo
// error of the family's coverage stays about ±0.005. Above 100 parameters the simulations are
// capped, fewer than 100 fall beyond the band, and that error grows as √(D/100) (about ±0.015
// at D = 1000); the band is then also never wider than the pointwise Bonferroni band over the
// K points, which needs no simulation and which the exact band never exceeds.
func SBCECDF(r *SBCResult, conf float64) (*ECDFResult, error) {
	if r == nil || len(r.Ranks) == 0 || len(r.Ranks[0]) == 0 {
		return nil, fmt.Errorf("diag: SBC ECDF needs SBC ranks, got none")
	}
	if conf == 0 {
		conf = DefaultConfidence
	}
	if !(conf > 0 && conf < 1) {
		return nil, fmt.Errorf("diag: SBC ECDF: confidence %v, expected a value in (0, 1)", conf)
	}
	n, m := len(r.Ranks[0]), r.Samples
	ks := ecdfPoints(m, 100)
	res := &ECDFResult{N: n, Samples: m, Confidence: conf, Proposal: r.Proposal, Z: make([]float64, len(ks)), Diff: make([][]float64, len(r.Ranks))}
	for j, k := range ks {
		res.Z[j] = float64(k) / float64(m+1)
	}
	for d, ranks := range r.Ranks {
		if len(ranks) != n {
			return nil, fmt.Errorf("diag: SBC ECDF: parameter %d has %d ranks, parameter 0 has %d", d, len(ranks), n)
		}
		counts := make([]int, m+2)
		for _, k := range ranks {
			if k < 0 || k > m {
				return nil, fmt.Errorf("diag: SBC ECDF: rank %d of parameter %d outside 0…%d", k, d, m)
			}
			counts[k+1]++
		}
		for k := 1; k <= m+1; k++ {
			counts[k] += counts[k-1] // counts[k] = #{r < k}
		}
		res.Diff[d] = make([]float64, len(ks))
		for j, k := range ks {
			res.Diff[d][j] = float64(counts[k])/float64(n) - res.Z[j]
		}
	}
	lo, hi := familyBand(n, m, ks, conf, len(r.Ranks))
	res.Lower, res.Upper = make([]float64, len(ks)), make([]float64, len(ks))
	for j := range ks {
		res.Lower[j], res.Upper[j] = lo[j]-res.Z[j], hi[j]-res.Z[j]
	}
	return res, nil
}

// ecdfPoints returns up to k distinct integers in 1…m spread evenly: the ranks k at which
// the ECDF of ranks in {0, …, m} is evaluated, as #{r < k}.
func ecdfPoints(m, k int) []int {
	if m <= k {
		out := make([]int, m)
		for i := range out {
			out[i] = i + 1
		}
		return out
	}
	var out []int
	for j := 1; j <= k; j++ {
		v := int(math.Round(float64(j) * float64(m+1) / float64(k+1)))
		if v >= 1 && v <= m && (len(out) == 0 || v > out[len(out)-1]) {
			out = append(out, v)
		}
	}
	return out
}

// ECDFBand returns the simultaneous band of the ECDF of n ranks drawn uniformly from
// {0, …, m}, at the points z_j = ks[j]/(m+1): lower[j] and upper[j] bound F̂(z_j) = #{r <
// ks[j]}/n for all j at once with probability conf. Method (Säilynoja et al. 2022, §2.2,
// simulation variant): for each of ECDFBandSims simulated rank sets, γ_s is the smallest over
// j of the two-sided binomial tail probability 2·min(P(B ≤ nF̂), P(B ≥ nF̂)) with
// B ~ Binomial(n, z_j); γ is the (1−conf)-quantile of the γ_s; the band at z_j is the pair of
// γ/2 and 1−γ/2 quantiles of Binomial(n, z_j), divided by n. The simulations use a fixed seed,
// so the band is a function of (n, m, ks, conf); its coverage carries a Monte Carlo error of
// about √(conf(1−conf)/2000) ≈ 0.005 at 95%.
func ECDFBand(n, m int, ks []int, conf float64) (lower, upper []float64) {
	return cachedBand(n, m, ks, 1-conf, ECDFBandSims, false)
}

// MaxECDFBandSims caps the simulated rank sets of SBCECDF's band for many parameters: each
// simulation holds one value (1.6 MB at the cap) and costs n + M + K steps for n pairs, M
// posterior draws and K evaluation points, on one goroutine.
const MaxECDFBandSims = 200_000

// familyBand returns the band that holds the ECDFs of dim parameters' uniform ranks at all
// points at once with probability at least conf: each parameter's simultaneous band at level
// (1 − conf)/dim, calibrated on ECDFBandSims·dim simulations (as many beyond the band as for
// one parameter at level 1 − conf), at most MaxECDFBandSims, and then floored at the
// Bonferroni level over the points.
func familyBand(n, m int, ks []int, conf float64, dim int) (lower, upper []float64) {
	if dim == 1 {
		return ECDFBand(n, m, ks, conf)
	}
	sims, floor := MaxECDFBandSims, true
	if dim <= MaxECDFBandSims/ECDFBandSims {
		sims, floor = ECDFBandSims*dim, false
	}
	return cachedBand(n, m, ks, (1-conf)/float64(dim), sims, floor)
}

// cachedBand is ecdfBand through bandCache.
func cachedBand(n, m int, ks []int, level float64, sims int, floor bool) (lower, upper []float64) {
	key := fmt.Sprint(n, m, ks, level, sims, floor)
	bandCache.Lock()
	if b, ok := bandCache.m[key]; ok {
		bandCache.Unlock()
		return append([]float64(nil), b[0]...), append([]float64(nil), b[1]...)
	}
	bandCache.Unlock()
	lower, upper = ecdfBand(n, m, ks, level, sims, floor)
	bandCache.Lock()
	if len(bandCache.m) >= 64 { // bounded: bands of the sizes in use
		bandCache.m = map[string][2][]float64{}
	}
	bandCache.m[key] = [2][]float64{lower, upper}
	bandCache.Unlock()
	return append([]float64(nil), lower...), append([]float64(nil), upper...)
}

// bandCache keeps the bands computed, keyed by their arguments: a band depends on them alone.
var bandCache = struct {
	sync.Mutex
	m map[string][2][]float64
}{m: map[string][2][]float64{}}

// ecdfBand is the band of ECDFBand at level = 1 − conf from sims simulated rank sets; with
// floor, γ is at least level/len(ks), the pointwise Bonferroni level over the points (a lower
// bound of the exact γ: the smallest of len(ks) tail probabilities falls below level/len(ks)
// with probability at most level), for when too few simulations fall beyond the band.
func ecdfBand(n, m int, ks []int, level float64, sims int, floor bool) (lower, upper []float64) {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(m)<<8|0x5a))
	// tails[j][c] = 2·min(P(B ≤ c), P(B ≥ c)) for B ~ Binomial(n, z_j), from the log pmf.
	tails := make([][]float64, len(ks))
	for j, k := range ks {
		tails[j] = binomialTwoSided(n, float64(k)/float64(m+1))
	}
	gammas := make([]float64, sims)
	counts := make([]int, m+2)
	for s := range gammas {
		for i := range counts {
			counts[i] = 0
		}
		for range n {
			counts[rng.IntN(m+1)+1]++
		}
		for k := 1; k <= m+1; k++ {
			counts[k] += counts[k-1]
		}
		g := 1.0
		for j, k := range ks {
			g = math.Min(g, tails[j][counts[k]])
		}
		gammas[s] = g
	}
	sort.Float64s(gammas)
	gamma := gammas[int(math.Floor(level*float64(len(gammas))))]
	if floor {
		gamma = math.Max(gamma, level/float64(len(ks)))
	}
	lower, upper = make([]float64, len(ks)), make([]float64, len(ks))
	for j, k := range ks {
		b := distuv.Binomial{N: float64(n), P: float64(k) / float64(m+1)}
		lower[j] = binomialQuantile(b, n, gamma/2) / float64(n)
		upper[j] = binomialQuantile(b, n, 1-gamma/2) / float64(n)
	}
	return lower, upper
}

// binomialTwoSided returns, for c = 0…n, 2·min(P(B ≤ c), P(B ≥ c)) with B ~ Binomial(n, p),
// from the probabilities exp(log C(n,c) + c·log p + (n−c)·log(1−p)).
func binomialTwoSided(n int, p float64) []float64 {
	pmf := make([]float64, n+1)
	ln, _ := math.Lgamma(float64(n + 1))
	for c := range pmf {
		a, _ := math.Lgamma(float64(c + 1))
		b, _ := math.Lgamma(float64(n - c + 1))
		pmf[c] = math.Exp(ln - a - b + float64(c)*math.Log(p) + float64(n-c)*math.Log1p(-p))
	}
	out := make([]float64, n+1)
	var below float64 // P(B ≤ c)
	total := 0.0
	for _, v := range pmf {
		total += v
	}
	for c, v := range pmf {
		above := total - below // P(B ≥ c)
		below += v
		out[c] = math.Min(1, 2*math.Min(below, above)/total)
	}
	return out
}

// Outside returns, per parameter, the indices of Z where Diff lies outside the band.
func (r *ECDFResult) Outside() [][]int {
	out := make([][]int, len(r.Diff))
	for d, diff := range r.Diff {
		for j, v := range diff {
			if v < r.Lower[j] || v > r.Upper[j] {
				out[d] = append(out[d], j)
			}
		}
	}
	return out
}

// Verdict says whether every parameter's ranks stay inside the band, which all uniform ranks
// do with probability Confidence, and how those of a parameter that leaves it do so: an ECDF
// difference above the band at low ranks and below it at high ranks means ranks piled at both
// ends (an over-confident posterior), the reverse ranks piled in the middle (under-confident),
// above only ranks too low (the posterior lies above the truth), below only ranks too high (it
// lies below). When every ECDF stays inside a band wider than ±MaxBandHalfWidth at the median
// rank (too few pairs), it says "inconclusive" with about the number of pairs that would decide.
func (r *ECDFResult) Verdict() string {
	var bad []string
	for d, idx := range r.Outside() {
		if len(idx) == 0 {
			continue
		}
		var lowUp, lowDown, highUp, highDown int
		for _, j := range idx {
			up := r.Diff[d][j] > r.Upper[j]
			switch {
			case r.Z[j] < 0.5 && up:
				lowUp++
			case r.Z[j] < 0.5:
				lowDown++
			case up:
				highUp++
			default:
				highDown++
			}
		}
		shape := "non-uniform"
		switch {
		case lowDown+highUp == 0 && lowUp > 0 && highDown > 0:
			shape = "over-confident: ranks piled at both ends"
		case lowUp+highDown == 0 && lowDown > 0 && highUp > 0:
			shape = "under-confident: ranks piled in the middle"
		case lowDown+highDown == 0:
			shape = "ranks too low: the posterior lies above the truth"
		case lowUp+highUp == 0:
			shape = "ranks too high: the posterior lies below the truth"
		}
		bad = append(bad, fmt.Sprintf("θ%d (%s; %d of %d points outside)", d+1, shape, len(idx), len(r.Z)))
	}
	if len(bad) > 0 {
		return fmt.Sprintf("not uniform: %s, outside the simultaneous %s band (%d pairs)", text.List(bad, "and"), text.Percent(r.Confidence), r.N)
	}
	if w := halfWidth(r.Z, r.Lower, r.Upper); w > MaxBandHalfWidth {
		return fmt.Sprintf("inconclusive: with %d pairs the simultaneous %s band is ±%.2f at the median rank, so departures from uniform ranks of that size go unnoticed; use about %d pairs (the band narrows as 1/√pairs)",
			r.N, text.Percent(r.Confidence), w, int(math.Ceil(float64(r.N)*(w/MaxBandHalfWidth)*(w/MaxBandHalfWidth))))
	}
	return fmt.Sprintf("consistent with uniform ranks: every parameter's ECDF stays in the simultaneous %s band (%d pairs)", text.Percent(r.Confidence), r.N)
}

// String is the verdict.
func (r *ECDFResult) String() string {
	s := "SBC ECDF: " + r.Verdict()
	if r.Proposal != "" {
		s += "\nnote: " + proposalNote(r.Proposal, false)
	}
	return s
}

// MIMEBundle shows the verdict as HTML and text; viz.SBCECDF draws the curves and the band.
func (r *ECDFResult) MIMEBundle() map[string]any {
	return map[string]any{"text/html": "<div><b>SBC ECDF</b>: " + r.Verdict() + proposalNoteHTML(r.Proposal) + "</div>", "text/plain": r.String()}
}
