package diag

import (
	"errors"
	"fmt"
	"html"
	"math"
	"sort"
	"strings"

	"github.com/gosbi/gosbi/internal/text"
	"github.com/gosbi/gosbi/sbi/internal/safe"
	"gonum.org/v1/gonum/stat/distuv"
)

// Levels returns n credibility levels evenly spaced on [0.05, 0.95], the papers' protocol:
// Levels(19) is 0.05, 0.10, …, 0.95. Levels(1) is [0.5]; n < 1 panics.
func Levels(n int) []float64 {
	if n < 1 {
		panic(fmt.Sprintf("diag: Levels needs n ≥ 1, got %d", n))
	}
	if n == 1 {
		return []float64{0.5}
	}
	l := make([]float64, n)
	for i := range l {
		l[i] = 0.05 + 0.9*float64(i)/float64(n-1)
	}
	return l
}

// DefaultConfidence is the probability that the binomial band of a CoverageResult holds the
// coverage of an exactly calibrated estimator at one level.
const DefaultConfidence = 0.95

// CoverageMethod names the estimator behind a coverage curve.
type CoverageMethod string

const (
	MethodGrid     CoverageMethod = "grid"     // GridCoverage: HPD ranks from densities on a grid
	MethodRank     CoverageMethod = "rank"     // RankCoverage, NewReport: HPD ranks from posterior draws
	MethodRanks    CoverageMethod = "ranks"    // CoverageFromRanks: ranks given by the caller
	MethodRegions  CoverageMethod = "regions"  // RegionCoverage: membership of given credible regions
	MethodMarginal CoverageMethod = "marginal" // marginal coverage of central intervals, one curve per parameter
)

// CoverageResult is the expected coverage of HPD regions at a set of credibility levels.
type CoverageResult struct {
	Label    string // name shown in legends and tables, e.g. "NPE 10k"
	Method   CoverageMethod
	N        int       // number of test pairs
	Levels   []float64 // credibility levels L (nominal coverage), increasing
	Coverage []float64 // empirical coverage: fraction of pairs with θ* in the HPD region of mass L

	// Lower and Upper bound the pointwise band in which the coverage of an exactly calibrated
	// estimator falls with probability Confidence at each level on its own: the
	// (1∓Confidence)/2 quantiles of Binomial(N, L) divided by N.
	Lower, Upper []float64
	Confidence   float64
	// SimLower and SimUpper bound the simultaneous band, which holds the whole curve of an
	// exactly calibrated estimator, at all K levels at once, with probability at least
	// SimConfidence (see SimultaneousBand). Verdict and Flagged use this band.
	SimLower, SimUpper []float64
	SimConfidence      float64

	// Ranks holds the HPD rank α of every test pair (see the package documentation), in the
	// order of the test pairs. Coverage(L) = fraction of Ranks ≥ 1 − L.
	Ranks []float64

	// AUC is the signed coverage AUC: mean over Levels of (Coverage − Level), about the signed
	// area between the curve and the diagonal on [0.05, 0.95] divided by 0.9. > 0 conservative,
	// < 0 over-confident, 0 calibrated on average (Delaunoy et al. 2022, §5.3).
	AUC float64
	// CalibrationError is mean |Level − Coverage| (Falkiewicz et al. 2023, eq. 9).
	CalibrationError float64
	// ConservativenessError is mean max(Level − Coverage, 0) (Falkiewicz et al. 2023, eq. 10).
	ConservativenessError float64
	// Dropped counts the test pairs left out because θ or x held NaN or ±Inf.
	Dropped int
	// Proposal is the estimator's TrainingProposal (sbi.NPE.TrainingProposal) when it was
	// trained on parameters drawn from a proposal, not from its prior (Sequential's later
	// rounds); "" otherwise. String and MIMEBundle then note that over test pairs drawn from the
	// whole prior the check tests what the estimator was not trained for. The verdict does not
	// use it.
	Proposal string
}

// CoverageFromRanks builds a CoverageResult from HPD ranks α ∈ [0, 1] computed elsewhere (for
// example by a calibration method or from conformal scores). A nil levels means Levels(19).
// It returns an error when a rank is outside [0, 1] or NaN.
func CoverageFromRanks(ranks, levels []float64) (*CoverageResult, error) {
	if len(ranks) == 0 {
		return nil, fmt.Errorf("diag: coverage needs at least one rank, got none")
	}
	for i, r := range ranks {
		if !(r >= 0 && r <= 1) {
			return nil, fmt.Errorf("diag: HPD rank %d is %v; ranks must lie in [0, 1]", i, r)
		}
	}
	if levels == nil {
		levels = Levels(19)
	}
	if err := checkLevels(levels); err != nil {
		return nil, err
	}
	return coverageFromRanks(MethodRanks, ranks, levels), nil
}

// MustCoverageFromRanks is CoverageFromRanks for notebook cells: it returns the result alone and
// panics with CoverageFromRanks's error.
func MustCoverageFromRanks(ranks, levels []float64) *CoverageResult {
	return safe.Must(CoverageFromRanks(ranks, levels))
}

func checkLevels(levels []float64) error {
	if len(levels) == 0 {
		return fmt.Errorf("diag: no credibility levels given; use diag.Levels(19)")
	}
	for i, l := range levels {
		if !(l > 0 && l < 1) {
			return fmt.Errorf("diag: credibility level %d is %v; levels must lie in (0, 1)", i, l)
		}
		if i > 0 && l <= levels[i-1] {
			return fmt.Errorf("diag: credibility levels must increase, got %v after %v", l, levels[i-1])
		}
	}
	return nil
}

func coverageFromRanks(method CoverageMethod, ranks, levels []float64) *CoverageResult {
	n := len(ranks)
	sorted := append([]float64(nil), ranks...)
	sort.Float64s(sorted)
	r := &CoverageResult{
		Method:   method,
		N:        n,
		Levels:   append([]float64(nil), levels...),
		Coverage: make([]float64, len(levels)),
		Ranks:    append([]float64(nil), ranks...),
	}
	for k, l := range levels {
		// Covered iff α ≥ 1 − L: count the ranks at or above the threshold.
		below := sort.SearchFloat64s(sorted, 1-l)
		r.Coverage[k] = float64(n-below) / float64(n)
	}
	r.setBands()
	r.AUC, r.CalibrationError, r.ConservativenessError = coverageErrors(r.Levels, r.Coverage)
	return r
}

// setBands sets the pointwise and the simultaneous band at the default confidence.
func (r *CoverageResult) setBands() {
	r.Confidence, r.SimConfidence = DefaultConfidence, DefaultConfidence
	r.Lower, r.Upper = BinomialBand(r.N, r.Levels, r.Confidence)
	r.SimLower, r.SimUpper = SimultaneousBand(r.N, r.Levels, r.SimConfidence)
}

func coverageErrors(levels, cov []float64) (auc, calib, cons float64) {
	for k, l := range levels {
		d := cov[k] - l
		auc += d
		calib += math.Abs(d)
		cons += math.Max(-d, 0)
	}
	m := float64(len(levels))
	return auc / m, calib / m, cons / m
}

// BinomialBand returns, for each level L, the central interval that holds the empirical
// coverage of n pairs with probability conf when the estimator is exactly calibrated: the
// (1−conf)/2 and (1+conf)/2 quantiles of Binomial(n, L), divided by n.
func BinomialBand(n int, levels []float64, conf float64) (lower, upper []float64) {
	lower = make([]float64, len(levels))
	upper = make([]float64, len(levels))
	for k, l := range levels {
		b := distuv.Binomial{N: float64(n), P: l}
		lower[k] = binomialQuantile(b, n, (1-conf)/2) / float64(n)
		upper[k] = binomialQuantile(b, n, (1+conf)/2) / float64(n)
	}
	return lower, upper
}

// binomialQuantile is the smallest k in [0, n] with CDF(k) ≥ p.
func binomialQuantile(b distuv.Binomial, n int, p float64) float64 {
	lo, hi := 0, n
	for lo < hi {
		mid := (lo + hi) / 2
		if b.CDF(float64(mid)) >= p {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return float64(lo)
}

// SimultaneousBand returns the band that holds the coverage of an exactly calibrated estimator
// at all K levels at once with probability at least conf: the pointwise binomial band of
// confidence 1 − (1 − conf)/K at each level (Bonferroni's inequality; conservative, since the
// coverage values at different levels are positively correlated).
func SimultaneousBand(n int, levels []float64, conf float64) (lower, upper []float64) {
	return BinomialBand(n, levels, 1-(1-conf)/float64(len(levels)))
}

// MaxBandHalfWidth is the widest simultaneous band, as half-width at the level nearest ½, that
// still makes a verdict: a wider band cannot tell an exactly calibrated estimator from one
// whose coverage is off by this much, so Verdict says "inconclusive" instead of calibrated.
const MaxBandHalfWidth = 0.1

// Simultaneous returns the simultaneous band that Verdict judges by and viz.Coverage draws: the
// result's own, or, for a result built by hand without one, the band at DefaultConfidence.
func (r *CoverageResult) Simultaneous() (lower, upper []float64, confidence float64) {
	if len(r.SimLower) == len(r.Levels) && len(r.SimUpper) == len(r.Levels) && r.SimConfidence > 0 {
		return r.SimLower, r.SimUpper, r.SimConfidence
	}
	lower, upper = SimultaneousBand(r.N, r.Levels, DefaultConfidence)
	return lower, upper, DefaultConfidence
}

// Pointwise returns the pointwise band that String shows and viz.Coverage draws: the result's
// own, or, for a result built by hand without one, the band at DefaultConfidence.
func (r *CoverageResult) Pointwise() (lower, upper []float64, confidence float64) {
	if len(r.Lower) == len(r.Levels) && len(r.Upper) == len(r.Levels) && r.Confidence > 0 {
		return r.Lower, r.Upper, r.Confidence
	}
	lower, upper = BinomialBand(r.N, r.Levels, DefaultConfidence)
	return lower, upper, DefaultConfidence
}

// Flagged returns the indices of the levels whose coverage lies below the simultaneous band
// (over-confident there) and above it (conservative there): the levels Verdict counts and
// viz.Coverage marks. A result Verdict cannot judge flags none.
func (r *CoverageResult) Flagged() (below, above []int) {
	if r.Judgeable() != nil {
		return nil, nil
	}
	lo, hi, _ := r.Simultaneous()
	return outside(r.Coverage, lo, hi)
}

// outside returns the indices k with cov[k] < lower[k] and with cov[k] > upper[k].
func outside(cov, lower, upper []float64) (below, above []int) {
	for k, c := range cov {
		switch {
		case c < lower[k]:
			below = append(below, k)
		case c > upper[k]:
			above = append(above, k)
		}
	}
	return below, above
}

// halfWidth is the half-width of the band at the level nearest ½.
func halfWidth(levels, lower, upper []float64) float64 {
	best := 0
	for k, l := range levels {
		if math.Abs(l-0.5) < math.Abs(levels[best]-0.5) {
			best = k
		}
	}
	return (upper[best] - lower[best]) / 2
}

// pairsForHalfWidth is the smallest number of test pairs whose simultaneous band at the given
// levels is at most w wide on either side at the level nearest ½ (at most 10⁷).
func pairsForHalfWidth(levels []float64, conf, w float64) int {
	lo, hi := 1, 10_000_000
	for lo < hi {
		mid := (lo + hi) / 2
		l, u := SimultaneousBand(mid, levels, conf)
		if halfWidth(levels, l, u) <= w {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// Verdict says in words what the plot of viz.Coverage shows, against the simultaneous band
// (drawn there, with the pointwise band inside it):
//   - "over-confident: …", "conservative: …" or "miscalibrated: …" when some levels lie below
//     and/or above the simultaneous band (Flagged): an exactly calibrated estimator does that
//     with probability at most 1 − SimConfidence;
//   - "inconclusive: …" when every level lies inside a simultaneous band wider than
//     ±MaxBandHalfWidth at the level nearest ½ (too few test pairs), with the number of pairs
//     that would decide;
//   - "consistent with calibration: …" otherwise, saying how many levels fall outside the
//     pointwise band and on which side (by chance, a calibrated curve leaves the pointwise band
//     at some level far more often than 1 − Confidence).
//
// A result that holds no levels or no test pairs, or a coverage that is not a fraction in
// [0, 1] (a result built by hand), reads "inconclusive: …" too.
func (r *CoverageResult) Verdict() string {
	if err := r.Judgeable(); err != nil {
		return "inconclusive: the result cannot be judged: " + err.Error()
	}
	lo, hi, conf := r.Simultaneous()
	below, above := outside(r.Coverage, lo, hi)
	k := len(r.Levels)
	band := "the simultaneous " + text.Percent(conf) + " band"
	switch {
	case len(below) > 0 && len(above) > 0:
		return fmt.Sprintf("miscalibrated: over-confident at %d and conservative at %d of %d levels (outside %s)", len(below), len(above), k, band)
	case len(below) > 0:
		return fmt.Sprintf("over-confident: %d of %d levels below %s", len(below), k, band)
	case len(above) > 0:
		return fmt.Sprintf("conservative: %d of %d levels above %s", len(above), k, band)
	}
	if w := halfWidth(r.Levels, lo, hi); w > MaxBandHalfWidth {
		return fmt.Sprintf("inconclusive: with %d test pairs %s is ±%.2f around the level nearest ½, so coverage errors of that size go unnoticed; use at least %d pairs",
			r.N, band, w, pairsForHalfWidth(r.Levels, conf, MaxBandHalfWidth))
	}
	v := fmt.Sprintf("consistent with calibration: all %d levels inside %s", k, band)
	if len(r.Lower) != k || len(r.Upper) != k {
		return v
	}
	pb, pa := outside(r.Coverage, r.Lower, r.Upper)
	point := "the pointwise " + text.Percent(r.Confidence) + " band"
	switch {
	case len(pb) > 0 && len(pa) > 0:
		v += fmt.Sprintf("; %s below and %d above %s, which is not significant over all levels", text.Count(len(pb), "level"), len(pa), point)
	case len(pb) > 0:
		v += fmt.Sprintf("; %d of %d levels below %s (over-confident side), which is not significant over all levels", len(pb), k, point)
	case len(pa) > 0:
		v += fmt.Sprintf("; %d of %d levels above %s (conservative side), which is not significant over all levels", len(pa), k, point)
	}
	return v
}

// Judgeable returns nil when the result can be judged against its bands, or an error saying
// why not: it holds no levels or no test pairs, a level that is not in [0, 1], or a coverage
// value that is missing or not a fraction in [0, 1] (a result built by hand). Verdict then says "inconclusive", String and
// MIMEBundle show no table, Flagged flags nothing, and viz.Coverage refuses to draw it.
func (r *CoverageResult) Judgeable() error {
	switch {
	case len(r.Levels) == 0:
		return errors.New("it holds no credibility levels")
	case r.N < 1:
		return fmt.Errorf("it holds N = %d test pairs, expected at least 1", r.N)
	case len(r.Coverage) != len(r.Levels):
		return fmt.Errorf("it holds %d coverage values for %d levels, expected one per level", len(r.Coverage), len(r.Levels))
	}
	for k, l := range r.Levels {
		if !(l >= 0 && l <= 1) {
			return fmt.Errorf("its level %d is %v, expected a credibility level in [0, 1] (0.95, not 95)", k+1, l)
		}
	}
	for k, c := range r.Coverage {
		if !(c >= 0 && c <= 1) {
			return fmt.Errorf("its coverage at level %.3g is %v, expected a fraction in [0, 1]", r.Levels[k], c)
		}
	}
	return nil
}

// String is a short text summary with the coverage at each level.
func (r *CoverageResult) String() string {
	var b strings.Builder
	name := r.Label
	if name == "" {
		name = "expected coverage"
	}
	fmt.Fprintf(&b, "%s (%s estimator, %d pairs): AUC %+.4f, calibration error %.4f, conservativeness error %.4f — %s\n",
		name, r.Method, r.N, r.AUC, r.CalibrationError, r.ConservativenessError, r.Verdict())
	if r.Judgeable() == nil { // a result built by hand may hold no bands to show
		lo, hi, conf := r.Simultaneous()
		plo, phi, pconf := r.Pointwise()
		fmt.Fprintf(&b, "%8s %9s %19s %19s\n", "level", "coverage", "pointwise "+text.Percent(pconf), "simultaneous "+text.Percent(conf))
		for k, l := range r.Levels {
			fmt.Fprintf(&b, "%8.3f %9.4f   [%.4f, %.4f]   [%.4f, %.4f]\n", l, r.Coverage[k], plo[k], phi[k], lo[k], hi[k])
		}
	}
	b.WriteString(droppedNote(r.Dropped))
	b.WriteString(proposalLine(r.Proposal))
	return b.String()
}

// MIMEBundle shows the result as a compact HTML table (levels across, coverage below) and as text.
func (r *CoverageResult) MIMEBundle() map[string]any {
	var b strings.Builder
	name := r.Label
	if name == "" {
		name = "Expected coverage"
	}
	fmt.Fprintf(&b, "<div><b>%s</b> — %s estimator, %d pairs: AUC <b>%+.4f</b>, calibration error %.4f, conservativeness error %.4f: <i>%s</i>",
		html.EscapeString(name), html.EscapeString(string(r.Method)), r.N, r.AUC, r.CalibrationError, r.ConservativenessError, html.EscapeString(r.Verdict()))
	if r.Judgeable() != nil { // a result built by hand may hold no bands to show
		b.WriteString(proposalNoteHTML(r.Proposal) + "</div>")
		return map[string]any{"text/html": b.String(), "text/plain": r.String()}
	}
	b.WriteString(`<table style="font-size:85%"><tr><th>level</th>`)
	for _, l := range r.Levels {
		fmt.Fprintf(&b, "<td>%.2f</td>", l)
	}
	b.WriteString("</tr><tr><th>coverage</th>")
	lo, hi, conf := r.Simultaneous()
	plo, phi, pconf := r.Pointwise()
	for k, c := range r.Coverage {
		style := ""
		switch {
		case c < lo[k]:
			style = ` style="color:#D55E00;font-weight:bold"`
		case c > hi[k]:
			style = ` style="color:#0072B2;font-weight:bold"`
		case c < plo[k]:
			style = ` style="color:#D55E00"`
		case c > phi[k]:
			style = ` style="color:#0072B2"`
		}
		fmt.Fprintf(&b, "<td%s>%.3f</td>", style, c)
	}
	fmt.Fprintf(&b, `</tr></table><span style="font-size:80%%">orange below, blue above the pointwise %s band; bold: outside the simultaneous %s band (what the verdict counts)</span>%s</div>`,
		text.Percent(pconf), text.Percent(conf), proposalNoteHTML(r.Proposal))
	return map[string]any{"text/html": b.String(), "text/plain": r.String()}
}

// RegionCoverage is the expected coverage of any family of credible regions of the form
// {θ : score(θ, x) ≤ threshold}, such as the conformalised regions of CANVI (score −log q,
// thresholds from conformal calibration) or HPD regions with thresholds found elsewhere:
// scores[i] is the score of the true parameter of pair i and thresholds[k] the threshold of
// the region of credibility levels[k]. The result has no Ranks. A NaN score or threshold is
// an error.
func RegionCoverage(scores, thresholds, levels []float64) (*CoverageResult, error) {
	if len(scores) == 0 {
		return nil, fmt.Errorf("diag: region coverage needs at least one score, got none")
	}
	if err := checkLevels(levels); err != nil {
		return nil, err
	}
	if len(thresholds) != len(levels) {
		return nil, fmt.Errorf("diag: region coverage needs one threshold per level: %d thresholds for %d levels", len(thresholds), len(levels))
	}
	for i, s := range scores {
		if math.IsNaN(s) {
			return nil, fmt.Errorf("diag: score %d is NaN", i)
		}
	}
	for k, t := range thresholds {
		if math.IsNaN(t) {
			return nil, fmt.Errorf("diag: region coverage: the threshold of level %v is NaN; no score is ≤ NaN, so its coverage would read 0", levels[k])
		}
	}
	n := len(scores)
	r := &CoverageResult{Method: MethodRegions, N: n, Levels: append([]float64(nil), levels...),
		Coverage: make([]float64, len(levels))}
	for k, t := range thresholds {
		c := 0
		for _, s := range scores {
			if s <= t {
				c++
			}
		}
		r.Coverage[k] = float64(c) / float64(n)
	}
	r.setBands()
	r.AUC, r.CalibrationError, r.ConservativenessError = coverageErrors(r.Levels, r.Coverage)
	return r, nil
}

// MustRegionCoverage is RegionCoverage for notebook cells: it returns the result alone and panics
// with RegionCoverage's error.
func MustRegionCoverage(scores, thresholds, levels []float64) *CoverageResult {
	return safe.Must(RegionCoverage(scores, thresholds, levels))
}
