package calib

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/internal/cancel"
	"github.com/gosbi/gosbi/sbi/internal/pairs"
	"github.com/gosbi/gosbi/sbi/internal/safe"
	"github.com/gosbi/gosbi/sbi/internal/table"
)

// ConformalQuantile is the split-conformal threshold of calibration scores at miscoverage
// alpha: the k-th smallest score with k = ⌈(n+1)(1−α)⌉ (Patel et al., CANVI, Algorithm 1,
// CPQuantile; Appendix D's "k-th largest" is a typo). It is +Inf when k > n, i.e. when there
// are too few scores for a finite region at that level. Scores may be +Inf; NaN scores are a
// programming error and make it panic.
func ConformalQuantile(scores []float64, alpha float64) float64 {
	s := append([]float64(nil), scores...)
	for i, v := range s {
		if math.IsNaN(v) { // sort.Float64s would put it first and shift every rank
			panic(fmt.Sprintf("calib: ConformalQuantile: score %d is NaN (a NaN log density of the estimator; NewConformal reports it as an error)", i))
		}
	}
	sort.Float64s(s)
	return quantileSorted(s, alpha)
}

// conformalRank is k = ⌈(n+1)(1−α)⌉, the rank of the threshold among n scores (at least 1).
func conformalRank(n int, alpha float64) int {
	k := int(math.Ceil(float64(n+1) * (1 - alpha)))
	// Guard against (n+1)(1−α) landing a hair above an integer through rounding.
	if fk := float64(n+1) * (1 - alpha); math.Abs(fk-math.Round(fk)) < 1e-9 {
		k = int(math.Round(fk))
	}
	return max(k, 1)
}

func quantileSorted(sorted []float64, alpha float64) float64 {
	if !(alpha > 0 && alpha < 1) { // NaN fails too
		panic(fmt.Sprintf("calib: miscoverage alpha must be in (0, 1), got %g", alpha))
	}
	n := len(sorted)
	k := conformalRank(n, alpha)
	if k > n {
		return math.Inf(1)
	}
	if k < 1 {
		k = 1
	}
	return sorted[k-1]
}

// Conformal is an amortized posterior calibrated by split conformal prediction with the score
// s(x, θ) = −log q(θ | x) (the log of CANVI's 1/q, which gives the same regions without
// overflow). Its region for an observation x is C(x) = {θ : −log q(θ|x) ≤ Threshold}, a
// super-level set of q, and P(Θ ∈ C(X)) ≥ 1 − Alpha for (Θ, X) from prior × simulator,
// whatever q is, provided the calibration pairs were drawn fresh from prior × simulator.
type Conformal struct {
	Estimator sbi.Amortized
	Alpha     float64 // miscoverage; the regions cover with probability ≥ 1 − Alpha
	Threshold float64 // region C(x) = {θ : −log q(θ|x) ≤ Threshold}; +Inf is the whole space
	N         int     // calibration pairs used
	Dropped   int     // calibration pairs dropped because θ or x had a NaN or infinite entry

	scores []float64 // sorted calibration scores
}

// ConformalScores returns −log q(θᵢ | xᵢ) for every row, the conformal score of each pair.
func ConformalScores(est sbi.Amortized, theta, x *mat.Dense) []float64 {
	lp := est.LogProbPairs(theta, x)
	s := make([]float64, len(lp))
	for i, v := range lp {
		s[i] = -v
	}
	return s
}

// NewConformal computes the conformal threshold of est at miscoverage alpha from calibration pairs
// (θᵢ, xᵢ), one per row, that must be fresh draws of prior × simulator, independent of the
// data est was trained or selected on. Rows with non-finite entries are dropped and counted,
// except that an observation padded with NaN trials is kept for an estimator that reads the
// padding (sbi.AmortizedTrials), as in package diag; one it cannot read is an error.
// With fewer than (1−α)/α pairs the threshold is +Inf: NewConformal then returns the calibration
// (whose regions are the whole space) together with an error saying how many pairs are needed.
// The threshold is +Inf too when the estimator gives zero density (log q = −Inf) to more than
// n − k of the n pairs; the error then says that.
func NewConformal(est sbi.Amortized, theta, x *mat.Dense, alpha float64) (*Conformal, error) {
	if !(alpha > 0 && alpha < 1) { // NaN fails too
		return nil, fmt.Errorf("calib: miscoverage alpha must be in (0, 1), got %g (for 90%% regions use 0.1)", alpha)
	}
	if est == nil {
		return nil, errors.New("calib: NewConformal needs an estimator, got nil")
	}
	theta, x, dropped, err := finitePairs(est, theta, x, "calibration pair")
	if err != nil {
		return nil, err
	}
	n, _ := theta.Dims()
	if n == 0 {
		return nil, fmt.Errorf("calib: no finite calibration pairs (%d dropped); simulate fresh pairs from prior × simulator", dropped)
	}
	s := ConformalScores(est, theta, x)
	for i, v := range s {
		if math.IsNaN(v) {
			return nil, fmt.Errorf("calib: the estimator returned a NaN log density for calibration pair %d; check the estimator", i)
		}
	}
	sort.Float64s(s)
	c := &Conformal{Estimator: est, Alpha: alpha, N: n, Dropped: dropped, scores: s}
	c.Threshold = quantileSorted(s, alpha)
	if math.IsInf(c.Threshold, 1) {
		if k := conformalRank(n, alpha); k <= n {
			return c, fmt.Errorf("calib: the estimator gives zero density (log q = −Inf) to %d of the %d calibration pairs, more than the %d that miscoverage %g allows: the threshold is +Inf and the region is the whole space; check the estimator's support",
				infiniteScores(s), n, n-k, alpha)
		}
		return c, fmt.Errorf("calib: %d calibration pairs are too few for miscoverage %g: need at least %d; the region is the whole space",
			n, alpha, int(math.Ceil((1-alpha)/alpha)))
	}
	return c, nil
}

// infiniteScores is the number of +Inf scores (log q = −Inf) among sorted scores.
func infiniteScores(sorted []float64) int {
	return len(sorted) - sort.SearchFloat64s(sorted, math.Inf(1))
}

// MustNewConformal is NewConformal for notebook cells: it returns the result alone and panics with
// NewConformal's error.
func MustNewConformal(est sbi.Amortized, theta, x *mat.Dense, alpha float64) *Conformal {
	return safe.Must(NewConformal(est, theta, x, alpha))
}

// WithAlpha returns the same calibration at another miscoverage, reusing the calibration scores.
func (c *Conformal) WithAlpha(alpha float64) *Conformal {
	d := *c
	d.Alpha = alpha
	d.Threshold = quantileSorted(c.scores, alpha)
	return &d
}

// Contains reports for every row i whether θᵢ lies in the region C(xᵢ). A pair at which the
// estimator's log density is NaN is neither in nor out of the region: Contains, having no
// error result, panics with the error MeasureCoverage returns for it (an error value, so that
// errors.Is and errors.As see through a recovered panic) rather than call the pair uncovered.
func (c *Conformal) Contains(theta, x *mat.Dense) []bool {
	s := mustRegionScores(c.Estimator, theta, x, "Contains")
	in := make([]bool, len(s))
	for i, v := range s {
		in[i] = v <= c.Threshold
	}
	return in
}

// Coverage is the fraction of pairs (θᵢ, xᵢ) with θᵢ in C(xᵢ); on fresh pairs from prior ×
// simulator it estimates the marginal coverage, which is at least 1 − Alpha. A NaN log density
// of the estimator at a pair panics as in Contains, instead of lowering the coverage;
// MeasureCoverage returns that error, drops pairs with non-finite entries and sets the
// coverage beside the guarantee.
func (c *Conformal) Coverage(theta, x *mat.Dense) float64 {
	s := mustRegionScores(c.Estimator, theta, x, "Coverage")
	k := 0
	for _, v := range s {
		if v <= c.Threshold {
			k++
		}
	}
	return float64(k) / float64(len(s))
}

// mustRegionScores is ConformalScores for the methods without an error result (Contains,
// Coverage): a NaN log density at pair i, which puts the pair neither in nor out of a region,
// panics with an error naming the pair, and the pair's NaN or infinite entry when it has one.
func mustRegionScores(est sbi.Amortized, theta, x *mat.Dense, caller string) []float64 {
	s := ConformalScores(est, theta, x)
	for i, v := range s {
		if !math.IsNaN(v) {
			continue
		}
		if !pairs.AllFinite(theta.RawRowView(i)) || !pairs.AllFinite(x.RawRowView(i)) {
			panic(fmt.Errorf("calib: %s: test pair %d has a NaN or infinite entry and the estimator returned a NaN log density for it; drop such pairs first (MeasureCoverage drops and counts them)", caller, i))
		}
		panic(fmt.Errorf("calib: %s: the estimator returned a NaN log density for test pair %d; check the estimator", caller, i))
	}
	return s
}

// Region is the conformal region C(x) for one observation.
func (c *Conformal) Region(x []float64) *Region {
	return &Region{Posterior: c.Estimator.Posterior(x), Threshold: c.Threshold}
}

// MIMEBundle shows the calibration.
func (c *Conformal) MIMEBundle() map[string]any {
	t := &table.Table{Title: "Conformal calibration (CANVI, score −log q)", Header: []string{"quantity", "value"}}
	t.Add("target coverage 1−α", table.G(1-c.Alpha))
	t.Add("threshold τ on −log q", table.G(c.Threshold))
	t.Add("calibration pairs", fmt.Sprint(c.N))
	if c.Dropped > 0 {
		t.Add("dropped (non-finite)", fmt.Sprint(c.Dropped))
	}
	t.Notes = append(t.Notes, c.Guarantee())
	return t.Bundle()
}

// Region is a super-level set {θ : −log q(θ) ≤ Threshold} of a posterior q.
type Region struct {
	Posterior sbi.Posterior
	Threshold float64
}

// String says what the region is: its threshold and the posterior it is a level set of.
func (r *Region) String() string {
	return fmt.Sprintf("region {θ : −log q(θ) ≤ %.4g} of q = %v", r.Threshold, r.Posterior)
}

// Contains reports for every row of theta whether it lies in the region. A θ at which the
// posterior's log density is NaN is neither in nor out of the region: Contains, having no error
// result, panics with an error value naming it (as Conformal.Contains does) rather than call it
// outside; Sample, GridVolume and ExpectedVolume return that error, and Volume panics with it.
func (r *Region) Contains(theta *mat.Dense) []bool {
	in, err := r.contains(theta, "Region.Contains", true)
	if err != nil {
		panic(err)
	}
	return in
}

// contains is Contains with the NaN log density as an error; input says that theta is the
// caller's, so that the error names its row.
func (r *Region) contains(theta *mat.Dense, caller string, input bool) ([]bool, error) {
	lp := r.Posterior.LogProb(theta)
	if err := checkLogProb(posteriorDensity, lp, theta, caller, input); err != nil {
		return nil, err
	}
	in := make([]bool, len(lp))
	for i, v := range lp {
		in[i] = -v <= r.Threshold
	}
	return in, nil
}

// density names whose log density a check reads (a region's posterior, the prior of its
// volume) and what to do when it is NaN.
type density struct{ name, hint string }

var (
	posteriorDensity = density{"posterior", "check the estimator (a posterior's LogProb is never NaN)"}
	priorDensity     = density{"prior", "check the prior (its LogProb must be a number or −Inf)"}
)

// checkLogProb returns an error naming the first θ (a row of theta) at which the log density
// lp of d is NaN, and the row's index when theta is the caller's input (input). A NaN density
// of the posterior puts θ neither in nor out of the region; one of the prior makes the
// importance weight of a volume's draw, and the bridge estimate of Z, NaN.
func checkLogProb(d density, lp []float64, theta *mat.Dense, caller string, input bool) error {
	for i, v := range lp {
		if !math.IsNaN(v) {
			continue
		}
		row := theta.RawRowView(i)
		at := fmt.Sprintf("θ = %v", row)
		if input {
			at += fmt.Sprintf(" (row %d of theta)", i)
		}
		if input && !pairs.AllFinite(row) {
			return &regionNaNError{fmt.Sprintf("calib: %s: %s has a NaN or infinite entry and the %s returned a NaN log density for it; drop such rows first", caller, at, d.name)}
		}
		return &regionNaNError{fmt.Sprintf("calib: %s: the %s returned a NaN log density at %s; %s", caller, d.name, at, d.hint)}
	}
	return nil
}

// regionNaNError is the error of checkLogProb, told apart by volume from the failure to
// estimate Z.
type regionNaNError struct{ msg string }

func (e *regionNaNError) Error() string { return e.msg }

// Sample draws n points of q restricted to the region, by rejection from q. It fails when the
// region holds less than about 0.1% of q's mass, where rejection would not end in reasonable time,
// for n < 0, and when q's log density is NaN at one of its draws (see Contains).
func (r *Region) Sample(rng *rand.Rand, n int) (*mat.Dense, error) {
	return r.SampleContext(runenv.Context(), rng, n)
}

// MustSample is Sample for notebook cells: it returns the result alone and panics with Sample's
// error.
func (r *Region) MustSample(rng *rand.Rand, n int) *mat.Dense {
	return safe.Must(r.Sample(rng, n))
}

// SampleContext is Sample stopped by ctx instead of the host's context (runenv.Context).
func (r *Region) SampleContext(ctx context.Context, rng *rand.Rand, n int) (*mat.Dense, error) {
	if n < 0 {
		return nil, fmt.Errorf("calib: Region.Sample: %d draws requested; want n ≥ 0", n)
	}
	d := r.Posterior.Dim()
	out := mat.NewDense(max(n, 1), d, nil)
	got, tried := 0, 0
	limit := 1000*n + 10000
	for got < n {
		if err := cancel.Check(ctx, "sampling a conformal region"); err != nil {
			return nil, cancel.Drawn(ctx, err, got, n)
		}
		if tried >= limit {
			return nil, fmt.Errorf("calib: region sampling accepted %d of %d proposals from q; the region holds too little of q's mass to sample by rejection", got, tried)
		}
		batch := max(2*(n-got), 64)
		prop := r.Posterior.Sample(rng, batch)
		tried += batch
		in, err := r.contains(prop, "Region.Sample", false)
		if err != nil {
			return nil, err
		}
		for i, ok := range in {
			if ok && got < n {
				out.SetRow(got, prop.RawRowView(i))
				got++
			}
		}
	}
	if n == 0 {
		return &mat.Dense{}, nil
	}
	return out, nil
}

// VolumeConfig sets the importance sampler of the region-volume estimate.
type VolumeConfig struct {
	Samples int // draws S per mixture level and observation; default 1000
	Levels  int // mixture levels K, weights λ_k = k/K of q against the prior; default 10
	// Pooled weights every draw by the average of the K mixture densities (the balance
	// heuristic of multiple importance sampling) instead of by the density of the level it was
	// drawn from. Both are unbiased; pooling tames the pure-q level λ = 1, whose weights are
	// heavy-tailed when q is over-confident and the region reaches far past q's mass.
	Pooled bool
	// Normalized declares that the posterior's LogProb is the normalized log density of the
	// distribution its Sample draws from, so that Volume takes Z = 1 instead of estimating it
	// (which adds Monte Carlo noise). Leave it false for ratio estimators (NRE, BNRE) and for
	// posteriors of unknown normalization.
	Normalized bool
}

func (v VolumeConfig) withDefaults() VolumeConfig {
	if v.Samples <= 0 {
		v.Samples = 1000
	}
	if v.Levels <= 0 {
		v.Levels = 10
	}
	return v
}

// Volume estimates the Lebesgue volume of the region by importance sampling from the mixtures
// q̃_λ = λ q/Z + (1−λ) prior, λ = k/K for k = 1..K (CANVI, Algorithm 2 and eq. 6):
//
//	ℓ̂ = 1/(K S) Σ_k Σ_j 1[−log q(θ_jk) ≤ τ] / q̃_λk(θ_jk),   θ_jk ~ q̃_λk,
//
// with the mixture density in log space. It returns the estimate and its Monte Carlo standard
// error (which leaves out the error of Z). The prior must have the coordinates (and Jacobians)
// of q.
//
// Z is the normalizing constant of the density q that LogProb returns, relative to the
// distribution Sample draws from: the draws come from q/Z. CANVI's eq. 6 assumes Z = 1, but a
// ratio estimator's log p(θ) + log r̂(θ, x) integrates to some Z(x) ≠ 1, and taking Z = 1 then
// scales the terms of the q draws by up to 1/Z. So Z is found, for every region, as follows:
//   - With VolumeConfig.Normalized, Z = 1.
//   - A posterior that reports its acceptance rate a (an NPE posterior: AcceptanceRate)
//     samples its normalized q restricted to the prior's support by rejection: Z = a,
//     measured after the draws.
//   - Any other posterior is normalized by bridge sampling (Meng and Wong 1996, eq. 4.1 with
//     the optimal bridge) between the volume's own draws of q/Z and of the prior, which needs
//     no assumption on q: see bridgeLogZ.
//
// It returns NaN, NaN when Z cannot be estimated: no prior draw falls where q > 0. A region
// with Threshold +Inf is the whole space: Volume returns +Inf, 0 for it without drawing (the
// sampler would only see the supports of q and the prior, and give a finite number). A NaN log
// density of q at a draw puts the draw neither in nor out of the region: Volume, having no
// error result, panics with the error Contains panics with; ExpectedVolume returns it. A NaN
// log density of the prior at a draw leaves its weight undefined: Volume panics with an error
// naming it, and ExpectedVolume returns it.
func (r *Region) Volume(rng *rand.Rand, prior sbi.Posterior, cfg VolumeConfig) (vol, se float64) {
	vol, se, err := r.volume(rng, prior, cfg, "Region.Volume")
	if err != nil {
		panic(err)
	}
	return vol, se
}

// volume is Volume with the NaN log density of q as an error.
func (r *Region) volume(rng *rand.Rand, prior sbi.Posterior, cfg VolumeConfig, caller string) (vol, se float64, err error) {
	cfg = cfg.withDefaults()
	if math.IsInf(r.Threshold, 1) {
		return math.Inf(1), 0, nil
	}
	levels := make([]volumeLevel, cfg.Levels)
	for k := range levels {
		lambda := float64(k+1) / float64(cfg.Levels)
		nq := 0
		for j := 0; j < cfg.Samples; j++ {
			if rng.Float64() < lambda {
				nq++
			}
		}
		theta := stackRows(sampleN(r.Posterior, rng, nq), sampleN(prior, rng, cfg.Samples-nq), r.Posterior.Dim())
		lq := r.Posterior.LogProb(theta)
		if err := checkLogProb(posteriorDensity, lq, theta, caller, false); err != nil {
			return 0, 0, err
		}
		lp := prior.LogProb(theta)
		if err := checkLogProb(priorDensity, lp, theta, caller, false); err != nil {
			return 0, 0, err
		}
		levels[k] = volumeLevel{lambda: lambda, nq: nq, lq: lq, lp: lp}
	}
	logZ := 0.0
	if !cfg.Normalized {
		var err error
		if logZ, err = r.logNormalizer(rng, prior, levels, cfg.Samples, caller); errors.As(err, new(*regionNaNError)) {
			return 0, 0, err
		} else if err != nil {
			return math.NaN(), math.NaN(), nil
		}
	}
	var sum, sum2 float64
	terms := 0
	// Pooled: the average mixture weight of q is (1/K) Σ_k k/K = (K+1)/(2K).
	lambdaBar := float64(cfg.Levels+1) / float64(2*cfg.Levels)
	for _, lv := range levels {
		for j := range lv.lq {
			var v float64
			if -lv.lq[j] <= r.Threshold {
				l := lv.lambda
				if cfg.Pooled {
					l = lambdaBar
				}
				lmix := lv.lq[j] - logZ
				if l < 1 {
					lmix = logAddExp(math.Log(l)+lmix, math.Log1p(-l)+lv.lp[j])
				}
				v = math.Exp(-lmix)
			}
			sum += v
			sum2 += v * v
			terms++
		}
	}
	mean := sum / float64(terms)
	variance := math.Max(sum2/float64(terms)-mean*mean, 0)
	return mean, math.Sqrt(variance / float64(terms)), nil
}

// volumeLevel holds the draws of one mixture level of Volume: the first nq from q/Z, the
// others from the prior, with their log densities under q and under the prior.
type volumeLevel struct {
	lambda float64
	nq     int
	lq, lp []float64
}

// logNormalizer returns log Z for the draws of Volume (see there), drawing `extra` more points
// of q or of the prior when the levels hold none.
func (r *Region) logNormalizer(rng *rand.Rand, prior sbi.Posterior, levels []volumeLevel, extra int, caller string) (float64, error) {
	type truncated interface{ AcceptanceRate() float64 }
	if tr, ok := r.Posterior.(truncated); ok {
		if a := tr.AcceptanceRate(); a > 0 && a < 1 {
			return math.Log(a), nil
		}
		return 0, nil
	}
	var lq, lqp, lpq, lpp []float64 // q draws: log q, log p; prior draws: log q, log p
	for _, lv := range levels {
		lq, lqp = append(lq, lv.lq[:lv.nq]...), append(lqp, lv.lp[:lv.nq]...)
		lpq, lpp = append(lpq, lv.lq[lv.nq:]...), append(lpp, lv.lp[lv.nq:]...)
	}
	if len(lq) == 0 {
		d := r.Posterior.Sample(rng, extra)
		lq, lqp = r.Posterior.LogProb(d), prior.LogProb(d)
		if err := checkLogProb(posteriorDensity, lq, d, caller, false); err != nil {
			return 0, err
		}
		if err := checkLogProb(priorDensity, lqp, d, caller, false); err != nil {
			return 0, err
		}
	}
	if len(lpq) == 0 {
		d := prior.Sample(rng, extra)
		lpq, lpp = r.Posterior.LogProb(d), prior.LogProb(d)
		if err := checkLogProb(posteriorDensity, lpq, d, caller, false); err != nil {
			return 0, err
		}
		if err := checkLogProb(priorDensity, lpp, d, caller, false); err != nil {
			return 0, err
		}
	}
	return bridgeLogZ(sub(lq, lqp), sub(lpq, lpp))
}

func sub(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] - b[i]
	}
	return out
}

// bridgeLogZ estimates log Z, the ratio of the normalizing constants of q and p, from n₁ draws
// of q/Z and n₂ draws of p with log l = log q − log p at each (arrays lq1 and lq2), by the
// optimal bridge sampling iteration of Meng and Wong (1996, eq. 4.1):
//
//	Z ← [ (1/n₂) Σ_{θ~p} l/(s₁l + s₂Z) ] / [ (1/n₁) Σ_{θ~q/Z} 1/(s₁l + s₂Z) ],  sᵢ = nᵢ/(n₁+n₂),
//
// run in log space from Z = 1 until it moves by less than 10⁻¹². Both sums are bounded, whatever
// the tails of q/p, unlike plain importance sampling of Z with the prior. Points where p = 0
// (l = +Inf) or q = 0 (l = 0) are allowed.
func bridgeLogZ(lq1, lq2 []float64) (float64, error) {
	n1, n2 := float64(len(lq1)), float64(len(lq2))
	if n1 == 0 || n2 == 0 {
		return 0, errors.New("calib: bridge sampling needs draws of q and of the prior")
	}
	ls1, ls2 := math.Log(n1/(n1+n2)), math.Log(n2/(n1+n2))
	logZ := 0.0
	for range 1000 {
		num, den := math.Inf(-1), math.Inf(-1)
		for _, l := range lq2 { // l/(s₁l + s₂Z) = 1/(s₁ + s₂Z/l)
			if !math.IsInf(l, -1) {
				num = logAddExp(num, -logAddExp(ls1, ls2+logZ-l))
			}
		}
		for _, l := range lq1 {
			den = logAddExp(den, -logAddExp(ls1+l, ls2+logZ))
		}
		next := (num - math.Log(n2)) - (den - math.Log(n1))
		if math.IsNaN(next) || math.IsInf(next, 0) {
			return 0, fmt.Errorf("calib: cannot normalize the posterior: bridge sampling gave log Z = %v (no prior draw where q > 0?)", next)
		}
		done := math.Abs(next-logZ) < 1e-12
		logZ = next
		if done {
			break
		}
	}
	return logZ, nil
}

// GridVolume is the volume of the region counted on a regular grid of bins cells per dimension
// over the box [lo, hi] (cell centres inside the region, times the cell volume). It is exact in
// the limit of fine grids and meant for checks in one to three dimensions. The grid may have at
// most 2²⁶ = 67,108,864 cells (bins^d: 8192 bins in two dimensions, 406 in three); a larger one
// is an error before any density is evaluated. A NaN log density of the posterior at a cell
// centre is an error (see Contains).
func (r *Region) GridVolume(lo, hi []float64, bins int) (float64, error) {
	return r.GridVolumeContext(runenv.Context(), lo, hi, bins)
}

// MustGridVolume is GridVolume for notebook cells: it returns the result alone and panics with
// GridVolume's error.
func (r *Region) MustGridVolume(lo, hi []float64, bins int) float64 {
	return safe.Must(r.GridVolume(lo, hi, bins))
}

// maxGridCells is the most cells GridVolume counts (see there).
const maxGridCells = 1 << 26

// GridVolumeContext is GridVolume stopped by ctx instead of the host's context (runenv.Context).
func (r *Region) GridVolumeContext(ctx context.Context, lo, hi []float64, bins int) (float64, error) {
	d := r.Posterior.Dim()
	if len(lo) != d || len(hi) != d {
		return 0, fmt.Errorf("calib: grid bounds have %d and %d entries, want %d (one per parameter)", len(lo), len(hi), d)
	}
	if bins < 1 {
		return 0, fmt.Errorf("calib: grid needs at least one bin per dimension, got %d", bins)
	}
	cells := 1
	cellVol := 1.0
	for i := range d {
		if !(hi[i] > lo[i]) {
			return 0, fmt.Errorf("calib: grid bound %d is [%g, %g]; need lo < hi", i, lo[i], hi[i])
		}
		cells *= bins
		cellVol *= (hi[i] - lo[i]) / float64(bins)
		if cells > maxGridCells {
			return 0, fmt.Errorf("calib: a grid of %d^%d cells is too large: at most %d cells (2^26); use fewer bins or Volume", bins, d, maxGridCells)
		}
	}
	const chunk = 4096
	count := 0
	pts := mat.NewDense(chunk, d, nil)
	for start := 0; start < cells; start += chunk {
		if err := cancel.Check(ctx, "grid volume"); err != nil {
			return 0, err
		}
		m := min(chunk, cells-start)
		for c := range m {
			idx := start + c
			row := pts.RawRowView(c)
			for i := range d {
				row[i] = lo[i] + (float64(idx%bins)+0.5)*(hi[i]-lo[i])/float64(bins)
				idx /= bins
			}
		}
		in, err := r.contains(pts.Slice(0, m, 0, d).(*mat.Dense), "Region.GridVolume", false)
		if err != nil {
			return 0, err
		}
		for _, in := range in {
			if in {
				count++
			}
		}
	}
	return float64(count) * cellVol, nil
}

// ExpectedVolume estimates E_X[volume of C(X)] of a calibration over observations xs (one per
// row, e.g. simulated from prior × simulator) with Region.Volume, returning the mean and its
// standard error across observations, or an error when a region's volume cannot be estimated
// or the estimator's or the prior's log density is NaN at a draw (see Region.Volume).
// With Threshold +Inf every region is the whole space, and the result is +Inf, 0.
func (c *Conformal) ExpectedVolume(rng *rand.Rand, prior sbi.Posterior, xs *mat.Dense, cfg VolumeConfig) (mean, se float64, err error) {
	return c.ExpectedVolumeContext(runenv.Context(), rng, prior, xs, cfg)
}

// MustExpectedVolume is ExpectedVolume for notebook cells: it returns the mean and its standard
// error and panics with ExpectedVolume's error.
func (c *Conformal) MustExpectedVolume(rng *rand.Rand, prior sbi.Posterior, xs *mat.Dense, cfg VolumeConfig) (mean, se float64) {
	mean, se, err := c.ExpectedVolume(rng, prior, xs, cfg)
	if err != nil {
		panic(err)
	}
	return mean, se
}

// ExpectedVolumeContext is ExpectedVolume stopped by ctx instead of the host's context.
func (c *Conformal) ExpectedVolumeContext(ctx context.Context, rng *rand.Rand, prior sbi.Posterior, xs *mat.Dense, cfg VolumeConfig) (mean, se float64, err error) {
	n, _ := xs.Dims()
	if n == 0 {
		return 0, 0, errors.New("calib: ExpectedVolume needs at least one observation")
	}
	if math.IsInf(c.Threshold, 1) {
		return math.Inf(1), 0, nil
	}
	p := sbi.NewProgress("conformal volume", n)
	defer p.Finish()
	vols := make([]float64, n)
	for i := range n {
		if err := cancel.Check(ctx, "conformal volume"); err != nil {
			return 0, 0, cancel.FinishProgress(ctx, p, err, i, n, "observations")
		}
		vols[i], _, err = c.Region(xs.RawRowView(i)).volume(rng, prior, cfg, fmt.Sprintf("ExpectedVolume: observation %d", i))
		if err != nil {
			return 0, 0, cancel.FinishProgress(ctx, p, err, i, n, "observations")
		}
		if math.IsNaN(vols[i]) {
			return 0, 0, fmt.Errorf("calib: the volume of the region of observation %d cannot be estimated: no prior draw falls where the estimator's density is positive", i)
		}
		p.Add(1)
	}
	m, s := meanSD(vols)
	return m, s / math.Sqrt(float64(n)), nil
}

// SimulateFunc draws one observation per row of theta.
type SimulateFunc func(rng *rand.Rand, theta *mat.Dense) *mat.Dense

// CANVIConfig sets the sizes of the three fresh simulation sets of CANVI.
type CANVIConfig struct {
	Alpha  float64      // miscoverage; default 0.05
	NCal   int          // calibration pairs D_C for each candidate's threshold; default 1000
	NRecal int          // recalibration pairs D_R for the selected candidate; default NCal
	NTest  int          // observations D_T for the volume estimate; default 100
	Volume VolumeConfig // importance sampler of the volume estimate
}

// CANVICandidate is what CANVI found for one candidate estimator.
type CANVICandidate struct {
	Threshold float64 // threshold on D_C
	Volume    float64 // estimated expected region volume at that threshold
	VolumeSE  float64 // its standard error across test observations
	// Dropped and DroppedTest count the calibration pairs of D_C and the test observations of
	// D_T left out because they hold NaN or ±Inf (as NewConformal drops them; padded
	// observations of an estimator that reads the padding are kept).
	Dropped, DroppedTest int
}

// CANVIResult is the selected, recalibrated estimator and the evidence for the choice.
type CANVIResult struct {
	Selected   int              // index of the chosen candidate
	Candidates []CANVICandidate // per candidate, in input order
	Conformal  *Conformal       // the chosen candidate recalibrated on D_R
	NCal       int              // calibration pairs simulated for D_C
	NTest      int              // test observations simulated for D_T
}

// CANVI selects among candidate amortized posteriors the one whose conformal regions are
// smallest in expected volume, then recalibrates it on fresh simulations so that the coverage
// guarantee holds after the selection (Patel et al., Algorithm 1). The prior (its Sample and
// LogProb) and the simulator make three independent sets: D_C to calibrate each candidate, D_T
// to estimate volumes, D_R to recalibrate the winner.
func CANVI(rng *rand.Rand, candidates []sbi.Amortized, prior sbi.Posterior, simulate SimulateFunc, cfg CANVIConfig) (*CANVIResult, error) {
	return CANVIContext(runenv.Context(), rng, candidates, prior, simulate, cfg)
}

// MustCANVI is CANVI for notebook cells: it returns the result alone and panics with CANVI's error.
func MustCANVI(rng *rand.Rand, candidates []sbi.Amortized, prior sbi.Posterior, simulate SimulateFunc, cfg CANVIConfig) *CANVIResult {
	return safe.Must(CANVI(rng, candidates, prior, simulate, cfg))
}

// CANVIContext is CANVI stopped by ctx instead of the host's context (runenv.Context).
func CANVIContext(ctx context.Context, rng *rand.Rand, candidates []sbi.Amortized, prior sbi.Posterior, simulate SimulateFunc, cfg CANVIConfig) (*CANVIResult, error) {
	if len(candidates) == 0 {
		return nil, errors.New("calib: CANVI needs at least one candidate estimator")
	}
	if prior == nil || simulate == nil {
		return nil, errors.New("calib: CANVI needs a prior and a simulator")
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	thC, xC, err := simulatePairs(rng, prior, simulate, cfg.NCal, "calibration set D_C")
	if err != nil {
		return nil, err
	}
	_, xT, err := simulatePairs(rng, prior, simulate, cfg.NTest, "test set D_T")
	if err != nil {
		return nil, err
	}
	res := &CANVIResult{Selected: -1, Candidates: make([]CANVICandidate, len(candidates)), NCal: cfg.NCal, NTest: cfg.NTest}
	best := math.Inf(1)
	p := sbi.NewProgress("CANVI candidates", len(candidates))
	defer p.Finish()
	for t, q := range candidates {
		if err := cancel.Check(ctx, "CANVI"); err != nil {
			return nil, cancel.FinishProgress(ctx, p, err, t, len(candidates), "candidates")
		}
		c, err := NewConformal(q, thC, xC, cfg.Alpha)
		if err != nil {
			return nil, fmt.Errorf("calib: CANVI candidate %d: %w", t, err)
		}
		_, xq, droppedTest, err := finitePairs(q, mat.NewDense(cfg.NTest, 1, nil), xT, "test observation")
		if err != nil {
			return nil, fmt.Errorf("calib: CANVI candidate %d: %w", t, err)
		}
		v, se, err := c.ExpectedVolumeContext(ctx, rng, prior, xq, cfg.Volume)
		if err != nil {
			return nil, cancel.FinishProgress(ctx, p, fmt.Errorf("calib: CANVI candidate %d: %w", t, err), t, len(candidates), "candidates")
		}
		res.Candidates[t] = CANVICandidate{Threshold: c.Threshold, Volume: v, VolumeSE: se, Dropped: c.Dropped, DroppedTest: droppedTest}
		if v < best || res.Selected < 0 {
			best, res.Selected = v, t
		}
		p.Add(1)
	}
	thR, xR, err := simulatePairs(rng, prior, simulate, cfg.NRecal, "recalibration set D_R")
	if err != nil {
		return nil, err
	}
	c, err := NewConformal(candidates[res.Selected], thR, xR, cfg.Alpha)
	if err != nil {
		return nil, fmt.Errorf("calib: CANVI recalibration: %w", err)
	}
	res.Conformal = c
	return res, nil
}

// MIMEBundle shows the candidates and the choice, with a note for every candidate that left
// out pairs or observations holding NaN or ±Inf.
func (r *CANVIResult) MIMEBundle() map[string]any {
	t := &table.Table{Title: "CANVI selection", Header: []string{"candidate", "threshold on D_C", "expected volume", "± se", ""}}
	for i, c := range r.Candidates {
		mark := ""
		if i == r.Selected {
			mark = "selected"
		}
		t.Add(fmt.Sprint(i), table.G(c.Threshold), table.G(c.Volume), table.G(c.VolumeSE), mark)
		if c.Dropped > 0 || c.DroppedTest > 0 {
			t.Notes = append(t.Notes, fmt.Sprintf("candidate %d: %d of %d calibration pairs of D_C and %d of %d test observations of D_T dropped (non-finite)",
				i, c.Dropped, r.NCal, c.DroppedTest, r.NTest))
		}
	}
	if r.Conformal != nil {
		dropped := ""
		if r.Conformal.Dropped > 0 {
			dropped = fmt.Sprintf(" (%d dropped, non-finite)", r.Conformal.Dropped)
		}
		t.Notes = append(t.Notes, fmt.Sprintf("recalibrated threshold %.4g on %d fresh pairs%s; %s",
			r.Conformal.Threshold, r.Conformal.N, dropped, r.Conformal.Guarantee()))
	}
	return t.Bundle()
}

// withDefaults fills the zero fields and refuses negative sizes and a level outside (0, 1).
func (cfg CANVIConfig) withDefaults() (CANVIConfig, error) {
	if cfg.NCal < 0 || cfg.NRecal < 0 || cfg.NTest < 0 {
		return cfg, fmt.Errorf("calib: CANVI: NCal = %d, NRecal = %d, NTest = %d; expected sizes ≥ 0 (0 takes the default: 1000, NCal, 100)", cfg.NCal, cfg.NRecal, cfg.NTest)
	}
	if cfg.Alpha != 0 && !(cfg.Alpha > 0 && cfg.Alpha < 1) {
		return cfg, fmt.Errorf("calib: CANVI: Alpha = %v; expected a miscoverage in (0, 1), e.g. 0.1 for 90%% regions (0 takes 0.05)", cfg.Alpha)
	}
	if cfg.Alpha == 0 {
		cfg.Alpha = 0.05
	}
	if cfg.NCal == 0 {
		cfg.NCal = 1000
	}
	if cfg.NRecal == 0 {
		cfg.NRecal = cfg.NCal
	}
	if cfg.NTest == 0 {
		cfg.NTest = 100
	}
	return cfg, nil
}

// simulatePairs draws n parameters from the prior and simulates one observation for each,
// with the errors of simulateRows.
func simulatePairs(rng *rand.Rand, prior sbi.Posterior, simulate SimulateFunc, n int, set string) (*mat.Dense, *mat.Dense, error) {
	theta := prior.Sample(rng, n)
	x, err := simulateRows(rng, simulate, theta, "calib: CANVI", "the "+set)
	return theta, x, err
}

// simulateRows runs simulate on theta. A simulator that panics, returns nil or returns another
// number of rows than theta has gives an error naming who called it (caller) and for what.
func simulateRows(rng *rand.Rand, simulate SimulateFunc, theta *mat.Dense, caller, what string) (*mat.Dense, error) {
	n, _ := theta.Dims()
	var x *mat.Dense
	err := safe.Call(caller+": the simulator", func() error {
		x = simulate(rng, theta)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w (simulating %s)", err, what)
	}
	if x == nil || x.IsEmpty() {
		return nil, fmt.Errorf("%s: the simulator returned nil for %s (%d parameters); it must return one row of x per row of θ", caller, what, n)
	}
	if r, _ := x.Dims(); r != n {
		return nil, fmt.Errorf("%s: the simulator returned %d rows for %d parameters (%s); it must return one row of x per row of θ", caller, r, n, what)
	}
	return x, nil
}

// finitePairs drops the rows where theta or x has a NaN or infinite entry and counts them. For
// an estimator whose observations may end in NaN padding (sbi.AmortizedTrials, observations of
// a varying number of i.i.d. trials) only the values of x before the padding count, as in
// package diag: a padded pair is kept, a row of NaN dropped, and an observation est cannot read
// is an error naming the pair (noun and its index).
func finitePairs(est sbi.Amortized, theta, x *mat.Dense, noun string) (*mat.Dense, *mat.Dense, int, error) {
	n, _ := theta.Dims()
	if nx, _ := x.Dims(); n != nx {
		return nil, nil, 0, fmt.Errorf("calib: theta has %d rows but x has %d; want one observation per parameter row", n, nx)
	}
	th, xx, dropped, err := pairs.Finite(est, theta, x, noun)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("calib: %w", err)
	}
	if th == nil {
		return &mat.Dense{}, &mat.Dense{}, dropped, nil
	}
	return th, xx, dropped, nil
}

func sampleN(p sbi.Posterior, rng *rand.Rand, n int) *mat.Dense {
	if n == 0 {
		return nil
	}
	return p.Sample(rng, n)
}

func stackRows(a, b *mat.Dense, d int) *mat.Dense {
	ra, rb := 0, 0
	if a != nil {
		ra, _ = a.Dims()
	}
	if b != nil {
		rb, _ = b.Dims()
	}
	out := mat.NewDense(ra+rb, d, nil)
	for i := range ra {
		out.SetRow(i, a.RawRowView(i))
	}
	for i := range rb {
		out.SetRow(ra+i, b.RawRowView(i))
	}
	return out
}

func logAddExp(a, b float64) float64 {
	if math.IsInf(a, 1) || math.IsInf(b, 1) {
		return math.Inf(1)
	}
	if math.IsInf(a, -1) {
		return b
	}
	if math.IsInf(b, -1) {
		return a
	}
	if a < b {
		a, b = b, a
	}
	return a + math.Log1p(math.Exp(b-a))
}

func meanSD(v []float64) (float64, float64) {
	var s, s2 float64
	for _, a := range v {
		s += a
	}
	m := s / float64(len(v))
	for _, a := range v {
		s2 += (a - m) * (a - m)
	}
	if len(v) < 2 {
		return m, 0
	}
	return m, math.Sqrt(s2 / float64(len(v)-1))
}
