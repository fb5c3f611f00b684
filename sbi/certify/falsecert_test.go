package certify

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/diag"
)

// The synthetic cases draw M posterior samples per test pair; exactCoverage accounts for them.
const synthDraws = 200

func TestExactCoverageOfTheSyntheticCases(t *testing.T) {
	// The reference the false-certification test rests on: exact for s = 1 (the randomized
	// rank is uniform), and the large-m limit 2Φ(s·z) − 1 for other s.
	for _, l := range DefaultLevels() {
		if c := exactCoverage(1, l, synthDraws); math.Abs(c-l) > 1e-6 {
			t.Errorf("s = 1, level %v: exact coverage %v, want the level", l, c)
		}
		for _, s := range []float64{0.7, 1.3} {
			z := math.Sqrt2 * math.Erfinv(l)
			want := math.Erf(s * z / math.Sqrt2)
			if c := exactCoverage(s, l, 20000); math.Abs(c-want) > 2e-3 {
				t.Errorf("s = %v, level %v: coverage with 20000 draws %v, want the limit %v", s, l, c, want)
			}
		}
	}
}

// certifySynthetic runs Certify on the conjugate model with the scaled posterior given as
// trained, no remedies, and a final test set of n pairs.
func certifySynthetic(t *testing.T, s float64, n int, seed uint64) *Certificate {
	t.Helper()
	return certifySyntheticTarget(t, s, n, seed, Target{})
}

func certifySyntheticTarget(t *testing.T, s float64, n int, seed uint64, tg Target) *Certificate {
	t.Helper()
	cert, err := Certify(gaussPrior(), gaussSimulator{}, nil, Config{
		Trained: scaledPosterior{s}, Remedies: NoRemedies(), Simulations: n, TestSimulations: n,
		Samples: synthDraws, SBCSamples: -1, Seed: seed, Target: tg,
	})
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// TestFalseCertificationRate runs Certify on 120 posteriors whose true coverage misses the
// target by 0.01 more than the tolerance at its worst level (over-confident and conservative,
// with test sets of 300 and 1,000 pairs) and counts how many it certifies: at most α = 0.05 by
// construction, so the count must lie below α·n plus three binomial standard deviations. It
// then checks the power: an exactly calibrated posterior with 2,000 test pairs must be certified
// in at least 90% of 40 cases (its power at these settings is above 0.98).
func TestFalseCertificationRate(t *testing.T) {
	levels := DefaultLevels()
	const tol, alpha, excess = DefaultTolerance, DefaultAlpha, 0.01
	narrow := scaleFor(tol+excess, levels, synthDraws, true)
	wide := scaleFor(tol+excess, levels, synthDraws, false)
	t.Logf("scales whose worst level misses by %.3f: narrow %.4f (deviation %.4f), wide %.4f (deviation %.4f)",
		tol+excess, narrow, maxDeviation(narrow, levels, synthDraws, true), wide, maxDeviation(wide, levels, synthDraws, false))

	type group struct {
		name string
		s    float64
		n    int
	}
	bad := []group{{"narrow/300", narrow, 300}, {"narrow/1000", narrow, 1000}, {"wide/300", wide, 300}, {"wide/1000", wide, 1000}}
	const perGroup = 30
	var cases, certified int
	seed := uint64(1)
	for _, g := range bad {
		var c, inc int
		for range perGroup {
			cert := certifySynthetic(t, g.s, g.n, seed)
			seed++
			switch cert.Verdict() {
			case Certified:
				c++
			case Inconclusive:
				inc++
			}
		}
		t.Logf("%s: %d of %d certified, %d inconclusive", g.name, c, perGroup, inc)
		cases += perGroup
		certified += c
	}
	limit := alpha*float64(cases) + 3*math.Sqrt(alpha*(1-alpha)*float64(cases))
	if float64(certified) > limit {
		t.Errorf("false certifications: %d of %d miscalibrated posteriors certified, above α·n + 3σ = %.1f", certified, cases, limit)
	}

	const good = 40
	var ok int
	for range good {
		if certifySynthetic(t, 1, 2000, seed).Certified() {
			ok++
		}
		seed++
	}
	t.Logf("power: %d of %d exactly calibrated posteriors certified", ok, good)
	if ok < good*9/10 {
		t.Errorf("power: only %d of %d exactly calibrated posteriors certified, want ≥ 90%%", ok, good)
	}
}

// TestFalseCertificationRateConservative is the same check for a one-sided target: 60
// over-confident posteriors missing it by 0.01 beyond the tolerance are certified at most at
// rate α (+3σ), and 30 conservative ones (s = 1.3, coverage above every level) are certified in
// at least 90% of cases, as they are wanted to be.
func TestFalseCertificationRateConservative(t *testing.T) {
	tg := Target{Conservative: true}
	levels := DefaultLevels()
	narrow := scaleFor(DefaultTolerance+0.01, levels, synthDraws, true)
	var cases, certified int
	seed := uint64(1000)
	for _, n := range []int{300, 1000} {
		for range 30 {
			if certifySyntheticTarget(t, narrow, n, seed, tg).Certified() {
				certified++
			}
			cases++
			seed++
		}
	}
	limit := DefaultAlpha*float64(cases) + 3*math.Sqrt(DefaultAlpha*(1-DefaultAlpha)*float64(cases))
	t.Logf("conservative target: %d of %d over-confident posteriors certified (limit %.1f)", certified, cases, limit)
	if float64(certified) > limit {
		t.Errorf("false certifications: %d of %d, above α·n + 3σ = %.1f", certified, cases, limit)
	}
	ok := 0
	for range 30 {
		if certifySyntheticTarget(t, 1.3, 1000, seed, tg).Certified() {
			ok++
		}
		seed++
	}
	t.Logf("conservative posteriors certified: %d of 30", ok)
	if ok < 27 {
		t.Errorf("power: %d of 30 conservative posteriors certified against a one-sided target, want ≥ 27", ok)
	}
}

// TestDecideVerdicts checks each verdict and its sentence on coverage results made from counts.
func TestDecideVerdicts(t *testing.T) {
	levels := []float64{0.5, 0.9}
	ranksFor := func(n int, cov []float64) []float64 {
		// n ranks such that exactly round(cov[k]·n) are ≥ 1 − levels[k].
		r := make([]float64, n)
		c0, c1 := int(math.Round(cov[0]*float64(n))), int(math.Round(cov[1]*float64(n)))
		for i := range r {
			switch {
			case i < c0:
				r[i] = 0.75 // covered at 0.5 and 0.9
			case i < c1:
				r[i] = 0.25 // covered at 0.9 only
			default:
				r[i] = 0.05
			}
		}
		return r
	}
	cases := []struct {
		name string
		n    int
		cov  []float64
		want Verdict
		says string
	}{
		{"calibrated", 2000, []float64{0.5, 0.9}, Certified, "lies within the target"},
		{"over-confident", 2000, []float64{0.40, 0.9}, NotCertified, "over-confident"},
		{"conservative", 2000, []float64{0.5, 0.99}, NotCertified, "conservative"},
		{"edge", 2000, []float64{0.45, 0.9}, Inconclusive, "straddles"},
		{"too few", 100, []float64{0.5, 0.9}, Inconclusive, "band too wide for the budget"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cov := diag.MustCoverageFromRanks(ranksFor(c.n, c.cov), levels)
			d, err := Decide(cov, Target{Levels: levels})
			if err != nil {
				t.Fatal(err)
			}
			if d.Verdict != c.want {
				t.Fatalf("verdict %q (%s), want %q", d.Verdict, d.Reason, c.want)
			}
			if !contains(d.Reason, c.says) {
				t.Errorf("reason %q does not say %q", d.Reason, c.says)
			}
		})
	}
	// A conservative target accepts over-coverage.
	cov := diag.MustCoverageFromRanks(ranksFor(2000, []float64{0.5, 0.99}), levels)
	if d, _ := Decide(cov, Target{Levels: levels, Conservative: true}); d.Verdict != Certified {
		t.Errorf("conservative target: %s: %s", d.Verdict, d.Reason)
	}
}

// Power is checked against simulation: test sets of uniform ranks (an exactly calibrated
// posterior) are certified at least as often as the bound says, and not much more often than the
// best single level allows.
func TestPowerAgainstSimulation(t *testing.T) {
	tg := Target{}.withDefaults()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{300, 800, 2000} {
		const reps = 400
		ok := 0
		for range reps {
			ranks := make([]float64, n)
			for i := range ranks {
				ranks[i] = rng.Float64()
			}
			d, err := Decide(diag.MustCoverageFromRanks(ranks, tg.Levels), tg)
			if err != nil {
				t.Fatal(err)
			}
			if d.Verdict == Certified {
				ok++
			}
		}
		rate := float64(ok) / reps
		bound := tg.Power(n)
		best := 1.0
		for _, l := range tg.Levels {
			best = min(best, passProbability(l, n, tg))
		}
		se := math.Sqrt(max(bound*(1-bound), 0.01) / reps)
		t.Logf("n = %d: certified %.3f of %d calibrated test sets; bound %.3f, weakest level %.3f", n, rate, reps, bound, best)
		if rate < bound-3*se || rate > best+3*se {
			t.Errorf("n = %d: certification rate %.3f outside [bound %.3f, weakest level %.3f] ± 3σ", n, rate, bound, best)
		}
	}
	need := tg.Needed(NeededPower)
	if tg.Power(need) < NeededPower || tg.Power(need*9/10) >= NeededPower {
		t.Errorf("Needed(%v) = %d, but Power there is %.3f and at 90%% of it %.3f", NeededPower, need, tg.Power(need), tg.Power(need*9/10))
	}
	t.Logf("Needed(%v) = %d test pairs", NeededPower, need)
}

func TestClopperPearsonClosedForms(t *testing.T) {
	// At the ends the bounds have closed forms: k = 0 gives upper 1 − α^(1/n), k = n lower α^(1/n).
	for _, n := range []int{10, 300} {
		for _, a := range []float64{0.05, 0.01} {
			_, hi := clopperPearson(0, n, a)
			lo, _ := clopperPearson(n, n, a)
			want := math.Pow(a, 1/float64(n))
			if math.Abs(hi-(1-want)) > 1e-9 || math.Abs(lo-want) > 1e-9 {
				t.Errorf("n %d, α %v: bounds %v, %v; want %v, %v", n, a, hi, lo, 1-want, want)
			}
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// TestDecideRefusesCoverageThatIsNotAFraction: Decide turns coverage into a count of test
// pairs, so a hand-made result whose coverage at a target level is NaN, ±Inf or outside [0, 1],
// or that lacks the coverage of a level, has no count. Before the fix NaN converted to an
// implementation-defined int (a panic in the Clopper–Pearson bounds on amd64, a count of 0 on
// arm64) and 1.5 panicked; each is an error now.
func TestDecideRefusesCoverageThatIsNotAFraction(t *testing.T) {
	levels := []float64{0.5, 0.9}
	for _, bad := range []float64{math.NaN(), math.Inf(1), -0.1, 1.5} {
		cov := &diag.CoverageResult{N: 1000, Levels: levels, Coverage: []float64{0.5, bad}}
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("coverage %v: Decide panicked: %v", bad, p)
				}
			}()
			if d, err := Decide(cov, Target{Levels: levels}); err == nil {
				t.Errorf("coverage %v: no error; %s: %s", bad, d.Verdict, d.Reason)
			}
		}()
	}
	cov := &diag.CoverageResult{N: 1000, Levels: levels, Coverage: []float64{0.5}}
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Errorf("missing coverage: Decide panicked: %v", p)
			}
		}()
		if _, err := Decide(cov, Target{Levels: levels}); err == nil {
			t.Error("missing coverage: no error")
		}
	}()
}
