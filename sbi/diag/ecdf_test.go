package diag

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// uniformRanks draws n ranks per parameter uniformly from {0, …, m}; shrink > 0 pushes them to
// the ends (an over-confident posterior: u ↦ ½ ± |u−½|^(1−shrink)·½^shrink).
func uniformRanks(seed uint64, n, m, dim int, shrink float64) *SBCResult {
	rng := rand.New(rand.NewPCG(seed, 11))
	r := &SBCResult{Samples: m, Ranks: make([][]int, dim)}
	for d := range dim {
		r.Ranks[d] = make([]int, n)
		for i := range n {
			u := rng.Float64()
			if shrink > 0 {
				s := 1.0
				if u < 0.5 {
					s = -1
				}
				u = 0.5 + s*math.Pow(math.Abs(u-0.5), 1-shrink)*math.Pow(0.5, shrink)
			}
			r.Ranks[d][i] = min(m, int(u*float64(m+1)))
		}
	}
	return r
}

// TestECDFBandCoverage: the simultaneous 95% band holds the whole ECDF of uniform ranks in
// 95% of 1000 fresh rank sets, within 3 binomial SE (0.0069) plus the band's own Monte Carlo
// calibration error (about 0.005 at 2000 simulations, counted at 3 SDs): ±0.036. Measured:
// 0.964 (M = 99, all 99 points) and 0.960 (M = 999, 100 of the 999 points): the discrete
// binomial quantiles make the band slightly conservative.
func TestECDFBandCoverage(t *testing.T) {
	for _, m := range []int{99, 999} {
		const n, reps = 200, 1000
		inside := 0
		for rep := range reps {
			res, err := SBCECDF(uniformRanks(uint64(rep), n, m, 1, 0), 0.95)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Outside()[0]) == 0 {
				inside++
			}
		}
		rate := float64(inside) / reps
		t.Logf("M = %d: ECDF inside the band in %.3f", m, rate)
		if math.Abs(rate-0.95) > 0.036 {
			t.Errorf("M = %d: ECDF of uniform ranks inside the band in %.3f of %d sets, want 0.95 ± 0.036", m, rate, reps)
		}
	}
}

// TestECDFShapes: over-confident ranks leave the band above at low and below at high ranks,
// and the verdict names it; the uniform ranks of the other parameter pass.
func TestECDFShapes(t *testing.T) {
	r := uniformRanks(3, 500, 99, 2, 0)
	bad := uniformRanks(4, 500, 99, 1, 0.5)
	r.Ranks[1] = bad.Ranks[0]
	res, err := SBCECDF(r, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := res.Outside()
	if len(out[0]) != 0 || len(out[1]) == 0 {
		t.Fatalf("points outside: %d for uniform ranks, %d for over-confident ones", len(out[0]), len(out[1]))
	}
	if v := res.Verdict(); !strings.Contains(v, "θ2 (over-confident: ranks piled at both ends") || strings.Contains(v, "θ1") {
		t.Errorf("verdict %q", v)
	}
	// Exact values: Z are k/(M+1) and Diff is the ECDF minus Z.
	for j, z := range res.Z {
		k := int(math.Round(z * 100))
		c := 0
		for _, v := range r.Ranks[0] {
			if v < k {
				c++
			}
		}
		if math.Abs(res.Diff[0][j]-(float64(c)/500-z)) > 1e-12 || !(res.Lower[j] < 0 && res.Upper[j] > 0) {
			t.Fatalf("point %d: diff %v, want %v; band [%v, %v]", j, res.Diff[0][j], float64(c)/500-z, res.Lower[j], res.Upper[j])
		}
	}
	if len(res.Z) != 99 {
		t.Errorf("%d evaluation points for M = 99, want all 99", len(res.Z))
	}
	if _, err := SBCECDF(&SBCResult{Samples: 9, Ranks: [][]int{{0, 12}}}, 0); err == nil {
		t.Error("rank 12 of M = 9: no error")
	}
}

// TestECDFVerdictFamilyLevel: the verdict judges all parameters at once, so on uniform ranks
// of 5 independent parameters (300 pairs, M = 99) it says "not uniform" in at most 5% of 400
// rank sets, within 3 binomial SE (0.011) plus the band's Monte Carlo error (0.005, counted at
// 3 SDs): at most 0.076. Measured: 0.253 when each parameter had its own 95% band, 0.060 with
// the bands corrected for the 5 (0.050 ± 0.005 over 2000 sets). Power: the same sets with one
// parameter over-confident (ranks pushed to the ends) are found not uniform, naming it, in
// 0.968 of them (at least 0.9 asked).
func TestECDFVerdictFamilyLevel(t *testing.T) {
	const n, m, dim, reps = 300, 99, 5, 400
	rejected, detected := 0, 0
	for rep := range reps {
		r := uniformRanks(uint64(rep), n, m, dim, 0)
		res, err := SBCECDF(r, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(res.Verdict(), "not uniform") {
			rejected++
		}
		r.Ranks[2] = uniformRanks(uint64(10000+rep), n, m, 1, 0.4).Ranks[0]
		if res, err = SBCECDF(r, 0.95); err != nil {
			t.Fatal(err)
		}
		if v := res.Verdict(); strings.HasPrefix(v, "not uniform") && strings.Contains(v, "θ3") {
			detected++
		}
	}
	level, power := float64(rejected)/reps, float64(detected)/reps
	t.Logf("%d parameters: level %.3f, power %.3f", dim, level, power)
	if level > 0.076 {
		t.Errorf("uniform ranks of %d parameters found not uniform in %.3f of %d sets, want at most 0.05 + 3 SE + Monte Carlo error = 0.076", dim, level, reps)
	}
	if power < 0.9 {
		t.Errorf("one over-confident parameter of %d found in %.3f of %d sets, want at least 0.9", dim, power, reps)
	}
}

// TestECDFVerdictInconclusive: with few pairs the band is so wide that large departures from
// uniform ranks stay inside it; the verdict then says inconclusive and how many pairs would
// decide, while ranks that do leave the band are still found not uniform.
func TestECDFVerdictInconclusive(t *testing.T) {
	few := uniformRanks(1, 30, 99, 1, 0)
	res, err := SBCECDF(few, 0)
	if err != nil {
		t.Fatal(err)
	}
	v := res.Verdict()
	if !strings.HasPrefix(v, "inconclusive: with 30 pairs") || !strings.Contains(v, "use about") {
		t.Errorf("30 uniform ranks: verdict %q, want inconclusive with the pairs that would decide", v)
	}
	low := &SBCResult{Samples: 99, Ranks: [][]int{make([]int, 30)}} // every rank 0
	if res, err = SBCECDF(low, 0); err != nil {
		t.Fatal(err)
	}
	if v := res.Verdict(); !strings.HasPrefix(v, "not uniform: θ1 (ranks too low") {
		t.Errorf("30 ranks all 0: verdict %q, want not uniform", v)
	}
	many := uniformRanks(2, 1000, 99, 1, 0)
	if res, err = SBCECDF(many, 0); err != nil {
		t.Fatal(err)
	}
	if v := res.Verdict(); !strings.HasPrefix(v, "consistent with uniform ranks") {
		t.Errorf("1000 uniform ranks: verdict %q, want consistent", v)
	}
}

// TestECDFVerdictNamesConfidence: the verdict names the band's confidence as it was asked for,
// a 99.9% band not as "100%", whether the ranks pass or not.
func TestECDFVerdictNamesConfidence(t *testing.T) {
	for _, c := range []struct {
		conf float64
		want string
	}{
		{0.95, "simultaneous 95% band"},
		{0.9, "simultaneous 90% band"},
		{0.995, "simultaneous 99.5% band"},
		{0.999, "simultaneous 99.9% band"},
		{0.9999, "simultaneous 99.99% band"},
	} {
		for _, over := range []float64{0, 0.5} {
			res, err := SBCECDF(uniformRanks(5, 300, 99, 1, over), c.conf)
			if err != nil {
				t.Fatal(err)
			}
			if v := res.Verdict(); !strings.Contains(v, c.want) {
				t.Errorf("confidence %v: verdict %q, want it to name the %q", c.conf, v, c.want)
			}
		}
	}
}
