package diag

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// ranksWithCoverage returns n HPD ranks whose coverage at each level is exactly cov[k] (a
// non-decreasing multiple of 1/n): count[k] = n·cov[k] ranks lie at or above 1 − L_k, the rest
// just below the next threshold.
func ranksWithCoverage(n int, levels, cov []float64) []float64 {
	ranks := make([]float64, 0, n)
	prev := 0
	for k, l := range levels {
		c := int(math.Round(cov[k] * float64(n)))
		for range c - prev {
			ranks = append(ranks, 1-l+1e-9) // covered from level k on
		}
		prev = c
	}
	for len(ranks) < n {
		ranks = append(ranks, 0) // covered at no level
	}
	return ranks
}

// shapedCoverage is a coverage curve on n pairs built relative to the two bands: at level k,
// shape[k] is "" (on the diagonal), "mid-low"/"mid-high" (between the lower/upper edges of the
// simultaneous and the pointwise band), "sim-low"/"sim-high" (0.01 beyond the simultaneous band), or
// "in-low"/"in-high" (at 90% of the pointwise band's lower/upper offset, inside it; used next to
// a dip or a bump so that the curve stays non-decreasing). Values are rounded down to 1/n.
func shapedCoverage(n int, levels []float64, shape map[int]string) []float64 {
	lo, hi := BinomialBand(n, levels, DefaultConfidence)
	slo, shi := SimultaneousBand(n, levels, DefaultConfidence)
	cov := make([]float64, len(levels))
	for k, l := range levels {
		c := l
		switch shape[k] {
		case "mid-low":
			c = (lo[k] + slo[k]) / 2
		case "mid-high":
			c = (hi[k] + shi[k]) / 2
		case "sim-low":
			c = slo[k] - 0.01
		case "sim-high":
			c = shi[k] + 0.01
		case "in-low":
			c = l + 0.9*(lo[k]-l)
		case "in-high":
			c = l + 0.9*(hi[k]-l)
		}
		cov[k] = math.Floor(c*float64(n)) / float64(n)
	}
	return cov
}

// span sets shape[k] = kind for k in [from, to).
func span(shape map[int]string, from, to int, kind string) map[int]string {
	for k := from; k < to; k++ {
		shape[k] = kind
	}
	return shape
}

// TestVerdictAgreesWithBands builds coverage curves relative to the two bands and checks that
// the verdict names what the bands show. The first case is the reported one: 6 of 19 levels
// below the pointwise 95% band (highlighted in the table) but inside the simultaneous band,
// which the old verdict called "calibrated (within the band)".
func TestVerdictAgreesWithBands(t *testing.T) {
	const n = 400
	levels := Levels(19)
	m := func() map[int]string { return map[int]string{} }
	cases := []struct {
		name          string
		shape         map[int]string
		prefix        string
		contains      string
		below, above  int // levels flagged against the simultaneous band
		pointwiseLow  int // levels below the pointwise band
		pointwiseHigh int
	}{
		{"below the pointwise band only", span(span(m(), 3, 6, "in-low"), 6, 12, "mid-low"),
			"consistent with calibration", "6 of 19 levels below the pointwise 95% band (over-confident side), which is not significant", 0, 0, 6, 0},
		{"below the simultaneous band", span(span(m(), 3, 6, "in-low"), 6, 12, "sim-low"),
			"over-confident", "6 of 19 levels below the simultaneous 95% band", 6, 0, 6, 0},
		{"above the simultaneous band", span(span(m(), 3, 7, "sim-high"), 7, 10, "in-high"),
			"conservative", "4 of 19 levels above the simultaneous 95% band", 0, 4, 0, 4},
		{"both sides", span(span(span(span(m(), 0, 3, "sim-high"), 3, 6, "in-high"), 13, 16, "in-low"), 16, 19, "sim-low"),
			"miscalibrated", "over-confident at 3 and conservative at 3 of 19 levels", 3, 3, 3, 3},
		{"on the diagonal", m(), "consistent with calibration", "all 19 levels inside the simultaneous 95% band", 0, 0, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cov := shapedCoverage(n, levels, c.shape)
			if !sort.Float64sAreSorted(cov) {
				t.Fatalf("constructed coverage %v decreases", cov)
			}
			r, err := CoverageFromRanks(ranksWithCoverage(n, levels, cov), levels)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r.Coverage, cov) {
				t.Fatalf("coverage %v, constructed %v", r.Coverage, cov)
			}
			v := r.Verdict()
			if !strings.HasPrefix(v, c.prefix) || !strings.Contains(v, c.contains) {
				t.Errorf("verdict %q, want it to start with %q and say %q", v, c.prefix, c.contains)
			}
			below, above := r.Flagged()
			pb, pa := outside(r.Coverage, r.Lower, r.Upper)
			if len(below) != c.below || len(above) != c.above || len(pb) != c.pointwiseLow || len(pa) != c.pointwiseHigh {
				t.Errorf("flagged %v below, %v above the simultaneous band, %v below, %v above the pointwise band; want %d, %d, %d, %d",
					below, above, pb, pa, c.below, c.above, c.pointwiseLow, c.pointwiseHigh)
			}
		})
	}
}

// TestVerdictInconclusive: 30 perfectly spread ranks lie inside every band, but the simultaneous
// band is so wide that it decides nothing; the verdict says so and names the number of pairs
// that would make the band ±MaxBandHalfWidth at level ½.
func TestVerdictInconclusive(t *testing.T) {
	levels := Levels(19)
	for _, c := range []struct {
		n            int
		inconclusive bool
	}{{30, true}, {150, true}, {1000, false}} {
		ranks := make([]float64, c.n)
		for i := range ranks {
			ranks[i] = (float64(i) + 0.5) / float64(c.n)
		}
		r, err := CoverageFromRanks(ranks, levels)
		if err != nil {
			t.Fatal(err)
		}
		v := r.Verdict()
		if got := strings.HasPrefix(v, "inconclusive: "); got != c.inconclusive {
			t.Errorf("n = %d: verdict %q, inconclusive %v, want %v", c.n, v, got, c.inconclusive)
		}
	}
	m := pairsForHalfWidth(levels, DefaultConfidence, MaxBandHalfWidth)
	lo, hi := SimultaneousBand(m, levels, DefaultConfidence)
	lo1, hi1 := SimultaneousBand(m-1, levels, DefaultConfidence)
	if w, w1 := halfWidth(levels, lo, hi), halfWidth(levels, lo1, hi1); w > MaxBandHalfWidth || w1 <= MaxBandHalfWidth {
		t.Errorf("pairsForHalfWidth = %d: half-width %.4f there and %.4f at %d, want ≤ and > %.2f", m, w, w1, m-1, MaxBandHalfWidth)
	}
	r, _ := CoverageFromRanks([]float64{0.2, 0.5, 0.8}, levels)
	if v := r.Verdict(); !strings.Contains(v, "use at least "+strconv.Itoa(m)+" pairs") {
		t.Errorf("verdict %q does not name the %d pairs needed", v, m)
	}
	t.Logf("a verdict needs at least %d pairs at 19 levels", m)
}

// TestVerdictOverConfidentPosterior: a posterior 0.6 times too narrow, 1000 test pairs, must be
// called over-confident, with the flagged levels below the simultaneous band and none above,
// while the exact posterior on 2000 pairs is consistent with calibration.
func TestVerdictOverConfidentPosterior(t *testing.T) {
	for _, c := range []struct {
		width  float64
		n      int
		prefix string
	}{{0.6, 1000, "over-confident: "}, {1, 2000, "consistent with calibration"}} {
		m := gaussModel{dim: 2, tau: 2, s: 0.5, width: c.width}
		theta, x := m.simulate(2, c.n)
		r, err := RankCoverage(m, theta, x, RankConfig{Samples: 200, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		v := r.Verdict()
		below, above := r.Flagged()
		t.Logf("width %.1f: %s (flagged below %v, above %v)", c.width, v, below, above)
		if !strings.HasPrefix(v, c.prefix) {
			t.Errorf("width %.1f: verdict %q, want prefix %q", c.width, v, c.prefix)
		}
		if c.width < 1 && (len(below) == 0 || len(above) != 0) {
			t.Errorf("width %.1f: flagged %v below, %v above, want some below and none above", c.width, below, above)
		}
		for _, k := range below {
			if !(r.Coverage[k] < r.SimLower[k]) {
				t.Errorf("level %.2f flagged but coverage %.4f ≥ simultaneous lower edge %.4f", r.Levels[k], r.Coverage[k], r.SimLower[k])
			}
		}
	}
}

// TestSimultaneousBandLevel draws 4000 sets of 100 uniform ranks (an exactly calibrated
// estimator): the whole curve must leave the simultaneous 95% band in at most 5% of the sets
// (plus three standard errors), while it leaves the pointwise band at some level far more often,
// which is why the verdict uses the simultaneous band.
func TestSimultaneousBandLevel(t *testing.T) {
	const reps, n = 4000, 100
	levels := Levels(19)
	rng := rand.New(rand.NewPCG(3, 4))
	simOut, pointOut := 0, 0
	ranks := make([]float64, n)
	for range reps {
		for i := range ranks {
			ranks[i] = rng.Float64()
		}
		sort.Float64s(ranks)
		r, err := CoverageFromRanks(ranks, levels)
		if err != nil {
			t.Fatal(err)
		}
		if b, a := r.Flagged(); len(b)+len(a) > 0 {
			simOut++
		}
		if b, a := outside(r.Coverage, r.Lower, r.Upper); len(b)+len(a) > 0 {
			pointOut++
		}
	}
	sim, point := float64(simOut)/reps, float64(pointOut)/reps
	t.Logf("calibrated curves leaving the simultaneous band: %.3f, the pointwise band: %.3f", sim, point)
	if max := 0.05 + 3*math.Sqrt(0.05*0.95/reps); sim > max {
		t.Errorf("the simultaneous band is left by %.3f of calibrated curves, want ≤ %.3f", sim, max)
	}
	if point < 0.15 {
		t.Errorf("the pointwise band is left by only %.3f of calibrated curves; expected well above 0.05", point)
	}
}

// TestVerdictUndecidableResult: a coverage result built by hand (the case Simultaneous and Pointwise provide for)
// that holds no test pairs, or a coverage that is NaN or not a fraction, cannot be judged.
// Before the fix N = 0 made the bands NaN, which no comparison flags, and a NaN coverage at
// one level of 2,000 uniform ranks was never outside the band: both read "consistent with
// calibration". Each now reads "inconclusive: …" and flags no level.
func TestVerdictUndecidableResult(t *testing.T) {
	levels := []float64{0.5, 0.9}
	ranks := make([]float64, 2000)
	for i := range ranks {
		ranks[i] = (float64(i) + 0.5) / 2000
	}
	withCoverage := func(k int, v float64) *CoverageResult {
		r := MustCoverageFromRanks(ranks, levels)
		r.Coverage[k] = v
		return r
	}
	cases := map[string]*CoverageResult{
		"no pairs":         {N: 0, Levels: levels, Coverage: []float64{0.5, 0.9}},
		"NaN coverage":     withCoverage(0, math.NaN()),
		"coverage above 1": withCoverage(1, 1.5),
		"coverage below 0": withCoverage(0, -0.2),
		"missing coverage": {N: 2000, Levels: levels, Coverage: []float64{0.5}},
	}
	cases["no bands"] = &CoverageResult{N: 2000, Levels: levels, Coverage: []float64{0.1, 0.9}} // decidable
	for name, r := range cases {
		v := r.Verdict()
		if name != "no bands" && !strings.HasPrefix(v, "inconclusive") {
			t.Errorf("%s: verdict %q; want inconclusive", name, v)
		}
		// What is shown says what Verdict says, and showing a result built by hand without
		// its bands does not panic.
		if s := r.String(); !strings.Contains(s, v) {
			t.Errorf("%s: String %q does not say the verdict %q", name, s, v)
		}
		if h := r.MIMEBundle()["text/html"].(string); !strings.Contains(h, v) {
			t.Errorf("%s: HTML %q does not say the verdict %q", name, h, v)
		}
		if below, above := r.Flagged(); strings.HasPrefix(v, "inconclusive") && len(below)+len(above) > 0 {
			t.Errorf("%s: Flagged %v %v on a result Verdict cannot judge", name, below, above)
		}
	}
	if v := cases["no bands"].Verdict(); !strings.HasPrefix(v, "over-confident") {
		t.Errorf("no bands, coverage 0.1 at level 0.5 of 2,000 pairs: %q, want over-confident", v)
	}
	if v := MustCoverageFromRanks(ranks, levels).Verdict(); !strings.HasPrefix(v, "consistent with calibration") {
		t.Errorf("2,000 uniform ranks: %q", v)
	}
}
