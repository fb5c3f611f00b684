package diag

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/internal/pvalue"
	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/internal/cancel"
	"github.com/gosbi/gosbi/sbi/internal/mathx"
	"github.com/gosbi/gosbi/sbi/internal/pairs"
	"github.com/gosbi/gosbi/sbi/internal/quantile"
	"github.com/gosbi/gosbi/sbi/internal/safe"
	"github.com/gosbi/gosbi/sbi/internal/table"
)

// Design is the set of index pairs a kernel U-statistic averages over.
type Design int

const (
	// Complete averages over all n(n−1)/2 pairs: the minimum-variance U-statistic, O(n²).
	Complete Design = iota
	// DisjointPairs averages over the pairs (0,1), (2,3), …: an incomplete U-statistic in
	// linear time, with much less power at the same n.
	DisjointPairs
	// Superdiagonals averages over the pairs (i, i+r), 1 ≤ r ≤ R (KernelTestConfig.Superdiagonals,
	// default 10): an incomplete U-statistic with about nR pairs, between the two others in
	// cost and power.
	Superdiagonals
)

func (d Design) String() string {
	switch d {
	case DisjointPairs:
		return "disjoint pairs (linear time)"
	case Superdiagonals:
		return "superdiagonals (incomplete)"
	}
	return "complete"
}

// designPairs lists the index pairs of an incomplete design.
func designPairs(design Design, n, R int) [][2]int {
	var pairs [][2]int
	if design == Superdiagonals {
		if R <= 0 {
			R = 10
		}
		for r := 1; r <= R; r++ {
			for i := 0; i+r < n; i++ {
				pairs = append(pairs, [2]int{i, i + r})
			}
		}
		return pairs
	}
	for k := 0; k+1 < n; k += 2 {
		pairs = append(pairs, [2]int{k, k + 1})
	}
	return pairs
}

// KernelTestConfig configures the KCCSD and SKCE calibration tests. The zero value is the paper's
// setting: Gaussian target kernel and exponentiated Fisher kernel with median-heuristic
// bandwidths, 10 base samples, complete U-statistic, 500 bootstrap draws, level 0.05. A
// bandwidth (TargetBandwidth, Dist.Bandwidth, Dist.GroundBandwidth) that is NaN or ±Inf is an
// error: it would make every kernel value NaN or the kernel constant. The values a test holds
// grow with the samples n and the bootstrap draws B, as n² + 2·n·B for the complete design, and
// may be at most MaxKernelTestValues (see there).
type KernelTestConfig struct {
	Target          TargetKernelKind
	TargetBandwidth float64 // ℓ of the target kernel; 0 picks the median of ‖yᵢ − yⱼ‖
	Dist            DistKernelConfig
	Design          Design
	Superdiagonals  int     // R of the Superdiagonals design; default 10
	Bootstrap       int     // wild-bootstrap draws; default 500
	Level           float64 // test level α in (0, 1); default 0.05
}

// MaxKernelTestValues bounds the float64 values a kernel calibration test holds at once
// (1 GiB): for the Complete design the n×n matrix of the pair kernel and two n×Bootstrap
// matrices of the wild bootstrap, n² + 2·n·Bootstrap values (about 11,000 samples at the
// default 500 draws); for DisjointPairs and Superdiagonals three values per pair (its kernel
// and its two indices), n signs and 2·Bootstrap draws. A test that would hold more returns an
// error before it allocates or evaluates anything: use fewer samples, an incomplete Design,
// whose memory grows linearly in n, or fewer Bootstrap draws.
const MaxKernelTestValues = 1 << 27

func (c KernelTestConfig) withDefaults() KernelTestConfig {
	if c.Bootstrap <= 0 {
		c.Bootstrap = 500
	}
	if c.Level == 0 {
		c.Level = 0.05
	}
	return c
}

// KernelTestResult is the outcome of a calibration test: H₀ "the predictions are calibrated" is
// rejected when PValue ≤ Level.
type KernelTestResult struct {
	Name      string
	Statistic float64 // the U-statistic; unbiased, so it can be negative
	Threshold float64 // the (1 − Level) quantile of the bootstrap null distribution
	PValue    float64 // (1 + #{bootstrap ≥ statistic})/(B + 1)
	Reject    bool
	Level     float64
	N, Pairs  int // samples and index pairs used
	// Bootstrap is the number B of wild-bootstrap draws: the smallest p-value is 1/(B + 1), so
	// with 1/(B + 1) > Level the test cannot reject and its display says inconclusive.
	Bootstrap int

	TargetBandwidth, DistBandwidth, GroundBandwidth float64
	Underflow                                       int // pairs where the kernel on distributions was below 1e-300 (used as 0); all of them is an error
}

// MIMEBundle shows the test outcome: the verdict with the p-value and the level it is compared
// with, both written with the digits that keep them in their order (p = 0.050004 is not shown
// as 0.05 beside "not rejected at 0.05").
func (r *KernelTestResult) MIMEBundle() map[string]any {
	t := &table.Table{Title: r.Name, Header: []string{"quantity", "value"}}
	p, level := pvalue.Format(r.PValue, r.Level)
	verdict := fmt.Sprintf("not rejected: no evidence of miscalibration (p = %s > α = %s)", p, level)
	switch {
	case r.Reject:
		verdict = fmt.Sprintf("rejected: the predictions are miscalibrated (p = %s ≤ α = %s)", p, level)
	case r.Bootstrap > 0 && 1/float64(r.Bootstrap+1) > r.Level:
		least, level := pvalue.Format(1/float64(r.Bootstrap+1), r.Level)
		verdict = fmt.Sprintf("inconclusive: with %d bootstrap draws the smallest p-value is %s > α = %s; use at least %d",
			r.Bootstrap, least, level, int(math.Ceil(1/r.Level-1e-9))-1)
	}
	t.Add("H₀ calibrated", verdict)
	t.Add("statistic", table.G(r.Statistic))
	t.Add("bootstrap threshold", table.G(r.Threshold))
	t.Add("p-value", p)
	t.Add("samples / pairs", fmt.Sprintf("%d / %d", r.N, r.Pairs))
	t.Add("bandwidths ℓ, σ, ground", fmt.Sprintf("%.3g, %.3g, %.3g", r.TargetBandwidth, r.DistBandwidth, r.GroundBandwidth))
	if r.Underflow > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%d of %d pairs have a kernel on distributions below 1e-300, used as 0: standardize the targets or pick a larger bandwidth σ", r.Underflow, r.Pairs))
	}
	return t.Bundle()
}

// KCCSDTest tests whether predictions pᵢ (one per target) are calibrated for targets yᵢ (rows of
// y) with the kernel calibration-conditional Stein discrepancy (Glaser et al., Algorithms 1 and
// 3): the U-statistic of H = k(pᵢ, pⱼ)·h((pᵢ, yᵢ), (pⱼ, yⱼ)) with the Stein kernel h, thresholded
// by a Rademacher wild bootstrap (degenerate under H₀ by the Stein identity). Only scores of the
// predictions are used, at the targets and (approximate Fisher kernels) at shared base points of
// N(0, I); a score that is NaN or infinite at any of them is an error naming the prediction and
// the point (see "Supports" in the package documentation).
func KCCSDTest(rng *rand.Rand, preds []Prediction, y *mat.Dense, cfg KernelTestConfig) (*KernelTestResult, error) {
	return KCCSDTestContext(runenv.Context(), rng, preds, y, cfg)
}

// MustKCCSDTest is KCCSDTest for notebook cells: it returns the result alone and panics with
// KCCSDTest's error.
func MustKCCSDTest(rng *rand.Rand, preds []Prediction, y *mat.Dense, cfg KernelTestConfig) *KernelTestResult {
	return safe.Must(KCCSDTest(rng, preds, y, cfg))
}

// KCCSDTestContext is KCCSDTest stopped by ctx instead of the host's context (runenv.Context).
func KCCSDTestContext(ctx context.Context, rng *rand.Rand, preds []Prediction, y *mat.Dense, cfg KernelTestConfig) (*KernelTestResult, error) {
	cfg = cfg.withDefaults()
	kt, err := newKernelTest(rng, preds, y, cfg)
	if err != nil {
		return nil, err
	}
	n, d, dist, ell, sigma := kt.n, kt.d, kt.dist, kt.ell, kt.sigma
	sy := mat.NewDense(n, d, nil)
	for i, p := range preds {
		s := p.Score(y.Slice(i, i+1, 0, d).(*mat.Dense)).RawRowView(0)
		if !pairs.AllFinite(s) {
			return nil, fmt.Errorf("diag: the score of prediction %d at its target %v is %v: its log density is −Inf or NaN at or next to the target, "+
				"so the prediction gives (almost) no mass where the target fell or its support is bounded there; "+
				"test a posterior on a bounded support in unconstrained coordinates (UnconstrainedPrediction)", i, y.RawRowView(i), s)
		}
		sy.SetRow(i, s)
	}
	res := kt.result(fmt.Sprintf("KCCSD test (%s ⊗ %s Stein kernel, %s)", cfg.Dist.Kind, cfg.Target, cfg.Design), cfg)
	hfun := func(i, j int) (float64, bool) {
		k := math.Exp(-dist.sq(i, j) / (2 * sigma * sigma))
		if k < 1e-300 {
			return 0, true
		}
		return k * SteinKernel(cfg.Target, ell, y.RawRowView(i), y.RawRowView(j), sy.RawRowView(i), sy.RawRowView(j), nil, nil), false
	}
	return runUTest(ctx, rng, n, hfun, cfg, res)
}

// SKCETest is the squared kernel calibration error test (Widmann et al.; Glaser et al., eq. 4)
// with the tensor kernel k(pᵢ, pⱼ)·l(yᵢ, yⱼ): the U-statistic of
//
//	k(pᵢ,pⱼ)[l(yᵢ,yⱼ) − E_{zᵢ~pᵢ} l(zᵢ,yⱼ) − E_{zⱼ~pⱼ} l(yᵢ,zⱼ) + E l(zᵢ,zⱼ)],
//
// with the expectations in closed form for Gaussian predictions and a Gaussian target kernel
// (cfg.Dist.Exact), and otherwise from BaseSamples draws of each prediction. It needs
// expectations under every prediction, which the KCCSD avoids.
func SKCETest(rng *rand.Rand, preds []Prediction, y *mat.Dense, cfg KernelTestConfig) (*KernelTestResult, error) {
	return SKCETestContext(runenv.Context(), rng, preds, y, cfg)
}

// MustSKCETest is SKCETest for notebook cells: it returns the result alone and panics with
// SKCETest's error.
func MustSKCETest(rng *rand.Rand, preds []Prediction, y *mat.Dense, cfg KernelTestConfig) *KernelTestResult {
	return safe.Must(SKCETest(rng, preds, y, cfg))
}

// SKCETestContext is SKCETest stopped by ctx instead of the host's context (runenv.Context).
func SKCETestContext(ctx context.Context, rng *rand.Rand, preds []Prediction, y *mat.Dense, cfg KernelTestConfig) (*KernelTestResult, error) {
	cfg = cfg.withDefaults()
	kt, err := newKernelTest(rng, preds, y, cfg)
	if err != nil {
		return nil, err
	}
	n, d, dist, ell, sigma := kt.n, kt.d, kt.dist, kt.ell, kt.sigma
	var ek func(i, j int) float64  // E_{z~pᵢ} l(z, yⱼ)
	var ekk func(i, j int) float64 // E l(zᵢ, zⱼ)
	if cfg.Dist.Exact {
		if cfg.Target != GaussianTarget {
			return nil, errors.New("diag: the exact SKCE needs the Gaussian target kernel; set Dist.Exact false for the sample-based SKCE")
		}
		gs, err := gaussians(preds)
		if err != nil {
			return nil, err
		}
		if sh := newSharedCovMeans(gs, y, ell); sh != nil {
			ek, ekk = sh.point, sh.pair
		} else {
			zero := mat.NewSymDense(d, nil)
			ek = func(i, j int) float64 { return gaussKernelMean(gs[i].Mean, y.RawRowView(j), gs[i].Cov, zero, ell) }
			ekk = func(i, j int) float64 { return gaussKernelMean(gs[i].Mean, gs[j].Mean, gs[i].Cov, gs[j].Cov, ell) }
		}
	} else {
		m := cfg.Dist.BaseSamples
		if m <= 0 {
			m = 10
		}
		samples := make([]*mat.Dense, n)
		for i, p := range preds {
			s, ok := p.(SampledPrediction)
			if !ok {
				return nil, fmt.Errorf("diag: the sample-based SKCE needs predictions that can be sampled, prediction %d (%T) cannot", i, p)
			}
			samples[i] = s.Sample(rng, m)
			if a, ok := firstNonFiniteRow(samples[i]); ok {
				return nil, fmt.Errorf("diag: draw %d of prediction %d is %v; the sample-based SKCE needs finite draws", a, i, samples[i].RawRowView(a))
			}
		}
		ek = func(i, j int) float64 {
			var s float64
			for a := range m {
				s += targetKernel(cfg.Target, ell, samples[i].RawRowView(a), y.RawRowView(j))
			}
			return s / float64(m)
		}
		ekk = func(i, j int) float64 {
			var s float64
			for a := range m {
				for b := range m {
					s += targetKernel(cfg.Target, ell, samples[i].RawRowView(a), samples[j].RawRowView(b))
				}
			}
			return s / float64(m*m)
		}
	}
	res := kt.result(fmt.Sprintf("SKCE test (%s ⊗ %s kernel, %s)", cfg.Dist.Kind, cfg.Target, cfg.Design), cfg)
	hfun := func(i, j int) (float64, bool) {
		k := math.Exp(-dist.sq(i, j) / (2 * sigma * sigma))
		if k < 1e-300 {
			return 0, true
		}
		yi, yj := y.RawRowView(i), y.RawRowView(j)
		return k * (targetKernel(cfg.Target, ell, yi, yj) - ek(i, j) - ek(j, i) + ekk(i, j)), false
	}
	return runUTest(ctx, rng, n, hfun, cfg, res)
}

// kernelTest is what the KCCSD and SKCE tests share before their pair kernels: the checked
// sizes, the distances between predictions and the three bandwidths.
type kernelTest struct {
	n, d               int
	dist               pairDist
	ell, sigma, ground float64
}

// newKernelTest checks the input and fixes the bandwidths, the median heuristic for any that
// cfg leaves at 0. The random stream is used in the same order by both tests: the base points
// or draws of the kernel on distributions, then the target and distribution medians.
func newKernelTest(rng *rand.Rand, preds []Prediction, y *mat.Dense, cfg KernelTestConfig) (*kernelTest, error) {
	if !(cfg.Level > 0 && cfg.Level < 1) { // NaN fails too
		return nil, fmt.Errorf("diag: calibration test: Level = %v, expected a level in (0, 1) (0 takes 0.05)", cfg.Level)
	}
	for _, b := range []struct {
		name string
		v    float64
	}{{"TargetBandwidth", cfg.TargetBandwidth}, {"Dist.Bandwidth", cfg.Dist.Bandwidth}, {"Dist.GroundBandwidth", cfg.Dist.GroundBandwidth}} {
		if math.IsNaN(b.v) || math.IsInf(b.v, 0) {
			return nil, fmt.Errorf("diag: calibration test: %s = %v, expected a finite bandwidth (0 takes the median heuristic)", b.name, b.v)
		}
	}
	n, d, err := checkTestInput(preds, y)
	if err != nil {
		return nil, err
	}
	if err := checkTestSize(n, cfg); err != nil {
		return nil, err
	}
	dist, ground, err := cfg.Dist.prepare(rng, preds)
	if err != nil {
		return nil, err
	}
	k := &kernelTest{n: n, d: d, dist: dist, ell: cfg.TargetBandwidth, sigma: cfg.Dist.Bandwidth, ground: ground}
	if k.ell <= 0 {
		k.ell = medianTargetDist(rng, y)
	}
	if k.sigma <= 0 {
		k.sigma = medianDist(rng, n, dist)
	}
	return k, nil
}

// testValues returns the float64 values runUTest holds for n samples under cfg (defaults
// applied), in float64 so that no product wraps.
func testValues(n int, cfg KernelTestConfig) float64 {
	fn, fb := float64(n), float64(cfg.Bootstrap)
	if cfg.Design != DisjointPairs && cfg.Design != Superdiagonals {
		return fn*fn + 2*fn*fb + 2*fb
	}
	pairs := math.Floor(fn / 2)
	if cfg.Design == Superdiagonals {
		r := cfg.Superdiagonals
		if r <= 0 {
			r = 10
		}
		fr := float64(min(r, max(n-1, 0)))
		pairs = fr*fn - fr*(fr+1)/2
	}
	return 3*pairs + fn + 2*fb
}

// checkTestSize refuses, before anything is allocated, a test that would hold more than
// MaxKernelTestValues values (cfg with its defaults applied).
func checkTestSize(n int, cfg KernelTestConfig) error {
	v := testValues(n, cfg)
	if v <= MaxKernelTestValues {
		return nil
	}
	if cfg.Design != DisjointPairs && cfg.Design != Superdiagonals {
		fb := float64(cfg.Bootstrap)
		most := int(math.Sqrt(fb*fb+MaxKernelTestValues-2*fb) - fb) // n² + 2nB + 2B ≤ the bound
		return fmt.Errorf("diag: calibration test: the complete design over %d samples with %d bootstrap draws holds %.4g values (n² + 2·n·Bootstrap), more than MaxKernelTestValues = %d (1 GiB): "+
			"use at most %d samples, Design: Superdiagonals or DisjointPairs (memory linear in n), or fewer Bootstrap draws", n, cfg.Bootstrap, v, MaxKernelTestValues, max(most, 0))
	}
	return fmt.Errorf("diag: calibration test: the %s design over %d samples with %d bootstrap draws holds %.4g values, more than MaxKernelTestValues = %d (1 GiB): "+
		"use fewer samples, fewer Superdiagonals or fewer Bootstrap draws", cfg.Design, n, cfg.Bootstrap, v, MaxKernelTestValues)
}

// result is the test's result before the U-statistic is computed.
func (k *kernelTest) result(name string, cfg KernelTestConfig) *KernelTestResult {
	return &KernelTestResult{Name: name, Level: cfg.Level, N: k.n, Bootstrap: cfg.Bootstrap,
		TargetBandwidth: k.ell, DistBandwidth: k.sigma, GroundBandwidth: k.ground}
}

// gaussKernelMean is E l(z, z') for z ~ N(a, A), z' ~ N(b, B) and the Gaussian kernel of
// bandwidth ℓ: det(I + (A+B)/ℓ²)^{−1/2} exp(−½ (a−b)ᵀ(A + B + ℓ²I)⁻¹(a−b)).
func gaussKernelMean(a, b []float64, A, B *mat.SymDense, ell float64) float64 {
	d := len(a)
	buf := make([]float64, d*d+d)
	s, diff := buf[:d*d], buf[d*d:]
	l2 := ell * ell
	ra, rb := A.RawSymmetric(), B.RawSymmetric()
	for i := range d {
		for j := 0; j <= i; j++ {
			// RawSymmetric holds the upper triangle; (j, i) with j ≤ i.
			s[i*d+j] = ra.Data[j*ra.Stride+i] + rb.Data[j*rb.Stride+i]
		}
		s[i*d+i] += l2
		diff[i] = a[i] - b[i]
	}
	logdet, quad, ok := cholQuad(s, diff, d)
	if !ok {
		return math.NaN()
	}
	return math.Exp(-0.5*(logdet-float64(d)*mathx.Log(l2)) - 0.5*quad)
}

// sharedCovMeans evaluates the Gaussian-kernel expectations of the SKCE when all predictions
// share one covariance Σ (homoscedastic models): whitening once by the Cholesky factors of
// Σ + ℓ²I and 2Σ + ℓ²I turns every expectation into c·exp(−½‖u − u'‖²).
type sharedCovMeans struct {
	c1, c2  float64
	v, t, u *mat.Dense // whitened means (Σ + ℓ²I), targets (Σ + ℓ²I), means (2Σ + ℓ²I)
}

func newSharedCovMeans(gs []*gaussian, y *mat.Dense, ell float64) *sharedCovMeans {
	cov := gs[0].Cov
	for _, g := range gs[1:] {
		if !mat.Equal(g.Cov, cov) {
			return nil
		}
	}
	n, d := y.Dims()
	l2 := ell * ell
	whiten := func(scale float64) (*mat.TriDense, float64, bool) {
		s := mat.NewSymDense(d, nil)
		s.ScaleSym(scale, cov)
		for k := range d {
			s.SetSym(k, k, s.At(k, k)+l2)
		}
		var ch mat.Cholesky
		if !ch.Factorize(s) {
			return nil, 0, false
		}
		var L mat.TriDense
		ch.LTo(&L)
		return &L, math.Exp(-0.5 * (ch.LogDet() - float64(d)*mathx.Log(l2))), true
	}
	L1, c1, ok1 := whiten(1)
	L2, c2, ok2 := whiten(2)
	if !ok1 || !ok2 {
		return nil
	}
	means := mat.NewDense(n, d, nil)
	for i, g := range gs {
		means.SetRow(i, g.Mean)
	}
	return &sharedCovMeans{c1: c1, c2: c2, v: solveRows(L1, means), t: solveRows(L1, y), u: solveRows(L2, means)}
}

// solveRows returns the rows of a, each solved with the lower-triangular L.
func solveRows(L *mat.TriDense, a *mat.Dense) *mat.Dense {
	var out mat.Dense
	if err := out.Solve(L, a.T()); err != nil {
		return nil
	}
	var t mat.Dense
	t.CloneFrom(out.T())
	return &t
}

func (s *sharedCovMeans) point(i, j int) float64 {
	return s.c1 * math.Exp(-0.5*sqDist(s.v.RawRowView(i), s.t.RawRowView(j)))
}

func (s *sharedCovMeans) pair(i, j int) float64 {
	return s.c2 * math.Exp(-0.5*sqDist(s.u.RawRowView(i), s.u.RawRowView(j)))
}

// cholQuad factorizes the symmetric positive-definite s (lower triangle used, d×d row-major,
// overwritten) and returns log det s and vᵀs⁻¹v (v is overwritten), without allocating.
func cholQuad(s, v []float64, d int) (logdet, quad float64, ok bool) {
	for j := range d {
		sum := s[j*d+j]
		for k := range j {
			sum -= s[j*d+k] * s[j*d+k]
		}
		if sum <= 0 {
			return 0, 0, false
		}
		ljj := math.Sqrt(sum)
		s[j*d+j] = ljj
		logdet += 2 * math.Log(ljj)
		for i := j + 1; i < d; i++ {
			sum := s[i*d+j]
			for k := range j {
				sum -= s[i*d+k] * s[j*d+k]
			}
			s[i*d+j] = sum / ljj
		}
	}
	// Forward solve L w = v; vᵀs⁻¹v = ‖w‖².
	for i := range d {
		sum := v[i]
		for k := range i {
			sum -= s[i*d+k] * v[k]
		}
		v[i] = sum / s[i*d+i]
		quad += v[i] * v[i]
	}
	return logdet, quad, true
}

func checkTestInput(preds []Prediction, y *mat.Dense) (n, d int, err error) {
	n, d = y.Dims()
	if len(preds) != n {
		return 0, 0, fmt.Errorf("diag: %d predictions for %d targets; want one prediction per row of y", len(preds), n)
	}
	if n < 4 {
		return 0, 0, fmt.Errorf("diag: a calibration test needs at least 4 samples, got %d", n)
	}
	for i, p := range preds {
		if p == nil || p.Dim() != d {
			return 0, 0, fmt.Errorf("diag: prediction %d has dimension %v, want %d (the columns of y)", i, dimOf(p), d)
		}
	}
	for i := range n {
		if !pairs.AllFinite(y.RawRowView(i)) {
			return 0, 0, fmt.Errorf("diag: target %d has a NaN or infinite entry; drop it before testing", i)
		}
	}
	return n, d, nil
}

func dimOf(p Prediction) any {
	if p == nil {
		return "nil"
	}
	return p.Dim()
}

func medianTargetDist(rng *rand.Rand, y *mat.Dense) float64 {
	n, _ := y.Dims()
	v := make([]float64, 0, maxMedianPairs)
	for _, p := range randomPairs(rng, n, maxMedianPairs) {
		v = append(v, math.Sqrt(sqDist(y.RawRowView(p[0]), y.RawRowView(p[1]))))
	}
	return medianOf(v)
}

func medianDist(rng *rand.Rand, n int, dist pairDist) float64 {
	v := make([]float64, 0, maxMedianPairs)
	for _, p := range randomPairs(rng, n, maxMedianPairs) {
		v = append(v, math.Sqrt(dist.sq(p[0], p[1])))
	}
	return medianOf(v)
}

// pairFunc is the kernel H of a U-statistic at the pair (i, j), and whether the kernel on
// distributions underflowed there (exp(−D²/(2σ²)) < 1e-300, used as 0).
type pairFunc func(i, j int) (v float64, underflow bool)

// nonFinitePair is the error for a kernel value that is NaN or infinite although every score
// and feature was finite: a bug or an overflow, never something to average over.
func nonFinitePair(i, j int, v float64) error {
	return fmt.Errorf("diag: the kernel at the pair (%d, %d) is %v although all scores are finite: "+
		"the scores are too large to multiply (rescale the targets) or the kernel is broken", i, j, v)
}

// runUTest evaluates the U-statistic of the pair function h over the design and its wild
// bootstrap: for the complete design the draws are εᵀHε/(n(n−1)) with H's diagonal zero, for
// incomplete designs R (1/|R|) Σ_{(i,j)∈R} εᵢεⱼ h(i, j), with ε Rademacher (Schrab et al. 2022).
func runUTest(ctx context.Context, rng *rand.Rand, n int, h pairFunc, cfg KernelTestConfig, res *KernelTestResult) (_ *KernelTestResult, err error) {
	defer safe.Recover(&err, "diag: the calibration test's kernel")
	B := cfg.Bootstrap
	boot := make([]float64, B)
	switch cfg.Design {
	case DisjointPairs, Superdiagonals:
		pairs := designPairs(cfg.Design, n, cfg.Superdiagonals)
		hv := make([]float64, len(pairs))
		var sum float64
		for k, p := range pairs {
			if k%4096 == 0 {
				if err := cancel.Check(ctx, "calibration test"); err != nil {
					return nil, err
				}
			}
			v, under := h(p[0], p[1])
			if under {
				res.Underflow++
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nonFinitePair(p[0], p[1], v)
			}
			hv[k] = v
			sum += hv[k]
		}
		np := float64(len(pairs))
		res.Statistic = sum / np
		res.Pairs = len(pairs)
		eps := make([]float64, n)
		for b := range B {
			for i := range eps {
				eps[i] = float64(int(rng.Uint64()&1)*2 - 1)
			}
			var s float64
			for k, p := range pairs {
				s += eps[p[0]] * eps[p[1]] * hv[k]
			}
			boot[b] = s / np
		}
	default:
		H := mat.NewDense(n, n, nil)
		under, err := fillSymmetric(ctx, H, h)
		if err != nil {
			return nil, err
		}
		res.Underflow = under
		var sum float64
		for _, v := range H.RawMatrix().Data {
			sum += v
		}
		norm := float64(n * (n - 1))
		res.Statistic = sum / norm
		res.Pairs = n * (n - 1) / 2
		E := mat.NewDense(n, B, nil)
		for i, raw := 0, E.RawMatrix().Data; i < len(raw); i++ {
			raw[i] = float64(int(rng.Uint64()&1)*2 - 1)
		}
		var HE mat.Dense
		HE.Mul(H, E)
		for b := range B {
			var s float64
			for i := range n {
				s += E.At(i, b) * HE.At(i, b)
			}
			boot[b] = s / norm
		}
	}
	if res.Pairs > 0 && res.Underflow == res.Pairs {
		// Every term is 0: the statistic and each bootstrap draw are 0 whatever the data.
		return nil, fmt.Errorf("diag: the kernel on distributions is below 1e-300 at all %d pairs (bandwidth σ = %.3g), so the test has no information: "+
			"standardize the targets or pick a larger bandwidth σ (0 takes the median heuristic)", res.Pairs, res.DistBandwidth)
	}
	sorted := append([]float64(nil), boot...)
	sort.Float64s(sorted)
	res.Threshold = quantile.Sorted(sorted, 1-cfg.Level)
	exceed := 0
	for _, v := range boot {
		if v >= res.Statistic {
			exceed++
		}
	}
	res.PValue = float64(1+exceed) / float64(B+1)
	res.Reject = res.PValue <= cfg.Level
	return res, nil
}

// fillSymmetric sets H[i][j] = H[j][i] = h(i, j) for i < j (zero diagonal), rows in parallel,
// and counts the pairs where the kernel on distributions underflowed. A NaN or infinite value,
// or a panic in a worker, is an error.
func fillSymmetric(ctx context.Context, H *mat.Dense, h pairFunc) (int, error) {
	n, _ := H.Dims()
	var under atomic.Int64
	err := forEachPair(ctx, "calibration test pairs", "test pairs", n, min(runtime.GOMAXPROCS(0), 8), func(i int) error {
		local := 0
		for j := i + 1; j < n; j++ {
			v, u := h(i, j)
			if u {
				local++
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nonFinitePair(i, j, v)
			}
			H.Set(i, j, v)
			H.Set(j, i, v)
		}
		under.Add(int64(local))
		return nil
	})
	return int(under.Load()), err
}

// KCCSDFeatures is the KCCSD U-statistic for predictions embedded by feature rows feat (from
// GFDFeatures or KGFDFeatures), with k(pᵢ, pⱼ) = exp(−‖fᵢ − fⱼ‖²/(2σ²)), scores sy at the targets
// y and the Stein kernel of kind with bandwidth ell, over the design's pairs:
//
//	Ĉ = (1/|R|) Σ_{(i,j)∈R} k(pᵢ, pⱼ) h((pᵢ, yᵢ), (pⱼ, yⱼ)).
//
// It is the form a training penalty reuses: when gradSy and gradFeat are not nil (shaped like sy
// and feat) it writes ∂Ĉ/∂sy and ∂Ĉ/∂feat into them, with ∂k/∂fᵢ = −k (fᵢ − fⱼ)/σ². Bandwidths
// are held fixed (no gradient), as the method note advises. Superdiagonals uses R = 10.
func KCCSDFeatures(y, sy, feat *mat.Dense, sigma float64, kind TargetKernelKind, ell float64, design Design, gradSy, gradFeat *mat.Dense) float64 {
	n, d := y.Dims()
	if r, c := sy.Dims(); r != n || c != d {
		panic(fmt.Sprintf("diag: KCCSDFeatures scores are %d×%d, want %d×%d like y", r, c, n, d))
	}
	if r, _ := feat.Dims(); r != n {
		panic(fmt.Sprintf("diag: KCCSDFeatures has %d feature rows, want %d", r, n))
	}
	_, p := feat.Dims()
	grads := gradSy != nil && gradFeat != nil
	if grads {
		gradSy.Zero()
		gradFeat.Zero()
	}
	gs, gs2 := make([]float64, d), make([]float64, d)
	var total float64
	pairs := 0
	visit := func(i, j int) {
		fi, fj := feat.RawRowView(i), feat.RawRowView(j)
		k := math.Exp(-sqDist(fi, fj) / (2 * sigma * sigma))
		var h float64
		if grads {
			h = SteinKernel(kind, ell, y.RawRowView(i), y.RawRowView(j), sy.RawRowView(i), sy.RawRowView(j), gs, gs2)
			gi, gj := gradSy.RawRowView(i), gradSy.RawRowView(j)
			for t := range d {
				gi[t] += k * gs[t]
				gj[t] += k * gs2[t]
			}
			gfi, gfj := gradFeat.RawRowView(i), gradFeat.RawRowView(j)
			c := -h * k / (sigma * sigma)
			for t := range p {
				g := c * (fi[t] - fj[t])
				gfi[t] += g
				gfj[t] -= g
			}
		} else {
			h = SteinKernel(kind, ell, y.RawRowView(i), y.RawRowView(j), sy.RawRowView(i), sy.RawRowView(j), nil, nil)
		}
		total += k * h
		pairs++
	}
	if design != Complete {
		for _, p := range designPairs(design, n, 0) {
			visit(p[0], p[1])
		}
	} else {
		for i := range n {
			for j := i + 1; j < n; j++ {
				visit(i, j)
			}
		}
	}
	if grads {
		gradSy.Scale(1/float64(pairs), gradSy)
		gradFeat.Scale(1/float64(pairs), gradFeat)
	}
	return total / float64(pairs)
}

// KCCSDAmortized tests whether an amortized estimator is calibrated on pairs (θᵢ, xᵢ) drawn from
// prior × simulator (one per row): the predictions are q(· | xᵢ), with scores by finite
// differences of LogProb (step h, as in PosteriorPrediction), and the targets are θᵢ. When est
// has a method Prior() dist.Distribution (NPE, NRE) and that prior's support is bounded in some
// coordinate, the test runs in the unconstrained coordinates u = f⁻¹(θ) of dist.Unconstrain(prior)
// (logit for a box, log for a half-line), with the Jacobian in the density, because the KCCSD
// needs a positive density with a finite score on all of R^d (see "Supports" in the package
// documentation); an estimator without Prior is tested in θ and must have such a density there.
// The exact kernels need Gaussian predictions, so cfg.Dist.Exact must be false. Calibration
// conditions on the prediction, not on x: an estimator that returns the prior for every x passes.
func KCCSDAmortized(rng *rand.Rand, est sbi.Amortized, theta, x *mat.Dense, h float64, cfg KernelTestConfig) (*KernelTestResult, error) {
	return KCCSDAmortizedContext(runenv.Context(), rng, est, theta, x, h, cfg)
}

// MustKCCSDAmortized is KCCSDAmortized for notebook cells: it returns the result alone and panics
// with KCCSDAmortized's error.
func MustKCCSDAmortized(rng *rand.Rand, est sbi.Amortized, theta, x *mat.Dense, h float64, cfg KernelTestConfig) *KernelTestResult {
	return safe.Must(KCCSDAmortized(rng, est, theta, x, h, cfg))
}

// KCCSDAmortizedContext is KCCSDAmortized stopped by ctx instead of the host's context
// (runenv.Context).
func KCCSDAmortizedContext(ctx context.Context, rng *rand.Rand, est sbi.Amortized, theta, x *mat.Dense, h float64, cfg KernelTestConfig) (*KernelTestResult, error) {
	if cfg.Dist.Exact {
		return nil, errors.New("diag: KCCSDAmortized uses score estimates of the posteriors; set Dist.Exact false")
	}
	theta, x, dropped, err := checkPairs("KCCSDAmortized", est, theta, x)
	if err != nil {
		return nil, err
	}
	n, d := theta.Dims()
	if err := checkTestSize(n, cfg.withDefaults()); err != nil { // before the n posteriors are built
		return nil, err
	}
	var f *dist.SupportMap
	if pr, ok := est.(interface{ Prior() dist.Distribution }); ok && pr.Prior() != nil {
		if m := dist.Unconstrain(pr.Prior()); !m.Identity() {
			f = &m
		}
	}
	preds := make([]Prediction, n)
	y := theta
	if f != nil {
		y = mat.NewDense(n, d, nil)
	}
	for i := range n {
		post := est.Posterior(x.RawRowView(i))
		if f == nil {
			preds[i] = PosteriorPrediction(post, h)
			continue
		}
		if !f.Inverse(theta.RawRowView(i), y.RawRowView(i)) {
			return nil, fmt.Errorf("diag: θ of pair %d is %v, not strictly inside the prior's support [%v, %v]; test pairs must be drawn from the prior",
				i, theta.RawRowView(i), f.Low, f.High)
		}
		preds[i] = UnconstrainedPrediction(post, *f, h)
	}
	res, err := KCCSDTestContext(ctx, rng, preds, y, cfg)
	if err != nil {
		return nil, err
	}
	if f != nil {
		res.Name += " in the unconstrained coordinates of the prior"
	}
	if dropped > 0 {
		res.Name += fmt.Sprintf(" [%d non-finite pairs dropped]", dropped)
	}
	return res, nil
}
