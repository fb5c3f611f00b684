package certify

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gosbi/gosbi/internal/text"
	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/sbi/internal/binom"
)

// Verdict is the outcome of a certification: Certified, NotCertified or Inconclusive.
type Verdict string

// The three verdicts. A certificate is Certified only when its test set showed every target
// level within the tolerance; NotCertified when it showed a level outside it (or refused the
// observation); Inconclusive when its numbers could decide neither way.
const (
	Certified    Verdict = "certified"
	NotCertified Verdict = "not certified"
	Inconclusive Verdict = "inconclusive"
)

// Default target of Config and Target.
const (
	DefaultTolerance = 0.05
	DefaultAlpha     = 0.05
)

// DefaultLevels are the credibility levels certified when none are given.
func DefaultLevels() []float64 { return []float64{0.5, 0.8, 0.9, 0.95} }

// Target is what a certificate claims: at every level L of Levels, the expected coverage of the
// credible regions of level L lies in [L − Tolerance, L + Tolerance] (in [L − Tolerance, 1] when
// Conservative), and the probability of certifying a posterior for which this is false is at
// most Alpha. The zero value is DefaultLevels, DefaultTolerance, DefaultAlpha, two-sided.
type Target struct {
	Levels       []float64
	Tolerance    float64
	Alpha        float64
	Conservative bool
}

func (t Target) withDefaults() Target {
	if t.Levels == nil {
		t.Levels = DefaultLevels()
	}
	if t.Tolerance == 0 {
		t.Tolerance = DefaultTolerance
	}
	if t.Alpha == 0 {
		t.Alpha = DefaultAlpha
	}
	return t
}

func (t Target) check() error {
	if len(t.Levels) == 0 {
		return fmt.Errorf("certify: no target levels; give some in (0, 1) or leave Levels nil for %v", DefaultLevels())
	}
	for i, l := range t.Levels {
		if !(l > 0 && l < 1) {
			return fmt.Errorf("certify: target level %d is %v; levels must lie in (0, 1)", i, l)
		}
		if i > 0 && l <= t.Levels[i-1] {
			return fmt.Errorf("certify: target levels must increase, got %v after %v", l, t.Levels[i-1])
		}
	}
	if !(t.Tolerance > 0 && t.Tolerance < 1) {
		return fmt.Errorf("certify: tolerance %v must lie in (0, 1) (0 means %v)", t.Tolerance, DefaultTolerance)
	}
	if !(t.Alpha > 0 && t.Alpha < 0.5) {
		return fmt.Errorf("certify: alpha %v must lie in (0, 0.5) (0 means %v)", t.Alpha, DefaultAlpha)
	}
	return nil
}

// String states the target in words.
func (t Target) String() string {
	t = t.withDefaults()
	if t.Conservative {
		return fmt.Sprintf("coverage at least each level minus %.3g (conservative) at the levels %s, false-certification rate ≤ %.3g",
			t.Tolerance, fmtLevels(t.Levels), t.Alpha)
	}
	return fmt.Sprintf("coverage within ±%.3g of each level %s, false-certification rate ≤ %.3g",
		t.Tolerance, fmtLevels(t.Levels), t.Alpha)
}

// LevelStatus is what the test set showed at one level.
type LevelStatus string

// The statuses of one level.
const (
	LevelPass      LevelStatus = "within"    // the interval lies inside the tolerance
	LevelFail      LevelStatus = "outside"   // the interval lies outside the tolerance
	LevelUndecided LevelStatus = "undecided" // the interval straddles an edge of the tolerance
)

// LevelCheck is the evidence at one target level: Count of N test pairs were covered by the
// region of credibility Level, and [Lower, Upper] is the interval in which the true coverage lies
// with confidence 1 − 2·Alpha (each bound one-sided at 1 − Alpha; Clopper–Pearson).
type LevelCheck struct {
	Level        float64
	Coverage     float64
	Count, N     int
	Lower, Upper float64
	Status       LevelStatus
}

// Decision is the verdict of one coverage result against a target.
type Decision struct {
	Target  Target
	N       int // test pairs
	Checks  []LevelCheck
	Verdict Verdict
	Reason  string // one sentence: why, with the numbers
	// Power is Target.Power(N): a lower bound on the probability that N test pairs certify an
	// exactly calibrated posterior.
	Power float64
	// Needed is, when the verdict is Inconclusive because the band is too wide, about how many
	// test pairs would certify an exactly calibrated posterior with probability NeededPower;
	// 0 otherwise.
	Needed int
}

// Decide judges a coverage result against t. It certifies only when, at every target level,
// the one-sided (1 − Alpha) Clopper–Pearson bounds of the coverage both lie inside the tolerance:
// two one-sided tests per level (TOST), combined as an intersection–union test, which needs no
// correction for the number of levels. So whatever the true coverage curve, the probability of
// certifying while some level's true coverage lies outside the tolerance is at most Alpha
// (Berger 1982; Berger & Hsu 1996). A level whose interval lies entirely outside the tolerance
// makes the verdict NotCertified (a claim also made at level Alpha); otherwise a level that
// cannot be decided makes it Inconclusive, and when even a test set whose coverage equals the
// level exactly would not decide, the reason says the band is too wide for the budget and how
// many test pairs would be needed.
//
// Levels of cov must include every target level (compared to 1e-9); other levels are ignored.
func Decide(cov *diag.CoverageResult, t Target) (*Decision, error) {
	t = t.withDefaults()
	if err := t.check(); err != nil {
		return nil, err
	}
	if cov == nil || cov.N < 1 {
		return nil, fmt.Errorf("certify: Decide needs a coverage result with at least one test pair")
	}
	d := &Decision{Target: t, N: cov.N}
	for _, l := range t.Levels {
		k := levelIndex(cov.Levels, l)
		if k < 0 {
			return nil, fmt.Errorf("certify: coverage result has no level %v; compute it at the target levels %v", l, t.Levels)
		}
		if k >= len(cov.Coverage) {
			return nil, fmt.Errorf("certify: coverage result has %d coverage values for %d levels", len(cov.Coverage), len(cov.Levels))
		}
		if c := cov.Coverage[k]; !(c >= 0 && c <= 1) { // NaN fails too
			return nil, fmt.Errorf("certify: the coverage at level %v is %v; it must be a fraction of the %d test pairs", l, c, cov.N)
		}
		count := int(math.Round(cov.Coverage[k] * float64(cov.N)))
		d.Checks = append(d.Checks, checkLevel(l, count, cov.N, t))
	}
	d.Verdict, d.Reason, d.Needed = summarize(d.Checks, t)
	d.Power = t.Power(cov.N)
	return d, nil
}

func levelIndex(levels []float64, l float64) int {
	for i, v := range levels {
		if math.Abs(v-l) < 1e-9 {
			return i
		}
	}
	return -1
}

// clopperPearson returns the one-sided (1 − alpha) lower and upper confidence bounds of a
// binomial proportion with count successes in n trials (binom.ClopperPearson).
func clopperPearson(count, n int, alpha float64) (lo, hi float64) {
	return binom.ClopperPearson(count, n, alpha)
}

func checkLevel(level float64, count, n int, t Target) LevelCheck {
	lo, hi := clopperPearson(count, n, t.Alpha)
	c := LevelCheck{Level: level, Coverage: float64(count) / float64(n), Count: count, N: n, Lower: lo, Upper: hi}
	c.Status = classify(level, lo, hi, t)
	return c
}

func classify(level, lo, hi float64, t Target) LevelStatus {
	min, max := level-t.Tolerance, level+t.Tolerance
	switch {
	case lo >= min && (t.Conservative || hi <= max):
		return LevelPass
	case hi < min || (!t.Conservative && lo > max):
		return LevelFail
	}
	return LevelUndecided
}

// decidable reports whether a test set of n pairs whose coverage equals level exactly would be
// certified at that level.
func decidable(level float64, n int, t Target) bool {
	count := int(math.Round(level * float64(n)))
	lo, hi := clopperPearson(count, n, t.Alpha)
	return classify(level, lo, hi, t) == LevelPass
}

// Power is a lower bound on the probability that a test set of n pairs certifies an exactly
// calibrated posterior against t: 1 − Σ_L P(level L does not pass), each term an exact binomial
// sum over the counts that pass at L (Bonferroni over the levels; the counts of nested regions
// are dependent, so the true probability is at least this). It tells what a budget can show
// before it is spent.
func (t Target) Power(n int) float64 {
	t = t.withDefaults()
	if n < 1 || t.check() != nil {
		return 0
	}
	miss := 0.0
	for _, l := range t.Levels {
		miss += 1 - passProbability(l, n, t)
	}
	return max(0, 1-miss)
}

// passProbability is P(the level passes) when the count is Binomial(n, level). The counts that
// pass form an interval [kmin, kmax]: both Clopper–Pearson bounds increase with the count.
func passProbability(level float64, n int, t Target) float64 {
	lower := func(k int) float64 { lo, _ := clopperPearson(k, n, t.Alpha); return lo }
	upper := func(k int) float64 { _, hi := clopperPearson(k, n, t.Alpha); return hi }
	kmin := sort.Search(n+1, func(k int) bool { return lower(k) >= level-t.Tolerance })
	kmax := n
	if !t.Conservative {
		kmax = sort.Search(n+1, func(k int) bool { return upper(k) > level+t.Tolerance }) - 1
	}
	if kmin > kmax {
		return 0
	}
	b := distuv.Binomial{N: float64(n), P: level}
	below := 0.0
	if kmin > 0 {
		below = b.CDF(float64(kmin - 1))
	}
	return max(0, b.CDF(float64(kmax))-below)
}

// Needed is the smallest number of test pairs (to within 1%, up to 10⁷) at which Power reaches
// power; 0 if none does.
func (t Target) Needed(power float64) int {
	t = t.withDefaults()
	hi := 100
	for t.Power(hi) < power {
		if hi > 10_000_000 {
			return 0
		}
		hi *= 2
	}
	lo := hi / 2
	for hi-lo > max(1, lo/100) {
		mid := (lo + hi) / 2
		if t.Power(mid) >= power {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// band returns the target's interval of coverage at level as it is shown: [level − Tolerance,
// level + Tolerance] within [0, 1], its upper edge 1 when Conservative.
func (t Target) band(level float64) (lo, hi float64) {
	lo, hi = max(level-t.Tolerance, 0), min(level+t.Tolerance, 1)
	if t.Conservative {
		hi = 1
	}
	return lo, hi
}

// NeededPower is the power Decision.Needed is computed for.
const NeededPower = 0.8

func summarize(checks []LevelCheck, t Target) (Verdict, string, int) {
	conf := text.Percent(1 - 2*t.Alpha)
	edges := func(c LevelCheck) string {
		lo, hi := t.band(c.Level)
		if t.Conservative {
			return fmt.Sprintf("≥ %.3f", lo)
		}
		return fmt.Sprintf("[%.3f, %.3f]", lo, hi)
	}
	for _, c := range checks {
		if c.Status == LevelFail {
			side := "over-confident"
			if c.Coverage > c.Level {
				side = "conservative"
			}
			return NotCertified, fmt.Sprintf("at level %.3g the coverage is %.3f (%d of %d test pairs; %s interval [%.3f, %.3f]), outside the target %s: the regions are %s",
				c.Level, c.Coverage, c.Count, c.N, conf, c.Lower, c.Upper, edges(c), side), 0
		}
	}
	var undecided []LevelCheck
	for _, c := range checks {
		if c.Status == LevelUndecided {
			undecided = append(undecided, c)
		}
	}
	if len(undecided) == 0 {
		worst := checks[0]
		for _, c := range checks[1:] {
			if math.Abs(c.Coverage-c.Level) > math.Abs(worst.Coverage-worst.Level) {
				worst = c
			}
		}
		return Certified, fmt.Sprintf("at every level %s the %s interval of the coverage on %d test pairs lies within the target (largest deviation %+.3f at level %.3g, interval [%.3f, %.3f])",
			fmtLevels(levelsOf(checks)), conf, checks[0].N, worst.Coverage-worst.Level, worst.Level, worst.Lower, worst.Upper), 0
	}
	for _, c := range undecided {
		if decidable(c.Level, c.N, t) {
			continue
		}
		need := t.Needed(NeededPower)
		return Inconclusive, fmt.Sprintf("band too wide for the budget: with %d test pairs the %s interval at level %.3g is [%.3f, %.3f] around a coverage of %.3f, wider than the tolerance ±%.3g allows; about %d test pairs would certify an exactly calibrated posterior with probability %.2g",
			c.N, conf, c.Level, c.Lower, c.Upper, c.Coverage, t.Tolerance, need, NeededPower), need
	}
	c := undecided[0]
	return Inconclusive, fmt.Sprintf("at level %.3g the coverage is %.3f (%d of %d test pairs) and its %s interval [%.3f, %.3f] straddles an edge of the target %s",
		c.Level, c.Coverage, c.Count, c.N, conf, c.Lower, c.Upper, edges(c)), 0
}

func levelsOf(checks []LevelCheck) []float64 {
	out := make([]float64, len(checks))
	for i, c := range checks {
		out[i] = c.Level
	}
	return out
}

func fmtLevels(levels []float64) string {
	s := make([]string, len(levels))
	for i, l := range levels {
		s[i] = fmt.Sprintf("%.3g", l)
	}
	return "{" + strings.Join(s, ", ") + "}"
}
