package diag

import (
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// trialsModel simulates a data set of a varying number of trials, padded with NaN to a fixed
// width: θ ~ N(0, 1), then trialsData.
func trialsModel(rng *rand.Rand) []float64 { return trialsData(rng, rng.NormFloat64()) }

// trialsData simulates the data set of θ: K = 6.5 + 2.5·θ + N(0, 0.2²) rounded and held to
// 3…10 trials, with values θ + N(0, 0.05²), then NaN to 10 values. Both the number of trials
// and the values depend on θ, so a data set of more trials holds larger values.
func trialsData(rng *rand.Rand, theta float64) []float64 {
	k := min(10, max(3, int(math.Round(6.5+2.5*theta+0.2*rng.NormFloat64()))))
	x := make([]float64, 10)
	for j := range x {
		x[j] = math.NaN()
		if j < k {
			x[j] = theta + 0.05*rng.NormFloat64()
		}
	}
	return x
}

// trialsSims returns m data sets of trialsModel, one per row.
func trialsSims(rng *rand.Rand, m int) *mat.Dense {
	x := mat.NewDense(m, 10, nil)
	for i := range m {
		copy(x.RawRowView(i), trialsModel(rng))
	}
	return x
}

// TestPredictiveVaryingTrialsLevel runs the predictive check of trialsModel against its own
// simulations (a prior predictive check of a correct model: the observation is exchangeable
// with the simulations) 300 times with 1000 simulations each, and asserts what exchangeability
// gives, each within 3 SE:
//
//   - the family-wise rejection rate at α = 0.05 is at most α (0.088);
//   - the observation's quantile among the simulations with a value there is uniform, mean 1/2
//     (±0.05), in the first trial (which every data set has) and in the sixth (which about half
//     have; averaged over the observations that have it);
//   - its p-value there is at most 0.05 in at most 5% of the repetitions (0.088).
//
// Before the fix the simulations with fewer trials than the observation were dropped as
// failures, so every value of the observation was ranked among data sets of at least as many
// trials, from larger θ, holding larger values: the mean quantile of the first trial was 0.19.
func TestPredictiveVaryingTrialsLevel(t *testing.T) {
	const reps, m, alpha = 300, 1000, 0.05
	var rejected, sixth int
	var q, small [2]int
	var qsum [2]float64
	for r := range reps {
		rng := rand.New(rand.NewPCG(uint64(r), 77))
		xo := trialsModel(rng)
		res, err := PredictiveFromSimulations(trialsSims(rng, m), xo, PredictiveConfig{Alpha: alpha})
		if err != nil {
			t.Fatalf("repetition %d: %v", r, err)
		}
		if res.Reject() {
			rejected++
		}
		for k, d := range []int{0, 5} {
			if math.IsNaN(xo[d]) {
				continue
			}
			q[k]++
			qsum[k] += res.Quantile[d]
			if res.PValues[d] <= 0.05 {
				small[k]++
			}
		}
		if !math.IsNaN(xo[5]) {
			sixth++
		}
	}
	bound := func(p float64, n int) float64 { return p + 3*math.Sqrt(p*(1-p)/float64(n)) }
	if level := float64(rejected) / reps; level > bound(alpha, reps) {
		t.Errorf("rejected %.3f of observations from the model, above α + 3 SE = %.3f", level, bound(alpha, reps))
	}
	for k, name := range []string{"first trial", "sixth trial"} {
		mean, rate := qsum[k]/float64(q[k]), float64(small[k])/float64(q[k])
		t.Logf("%s (%d observations have it): mean quantile %.3f, p ≤ 0.05 in %.3f", name, q[k], mean, rate)
		if tol := 3 * math.Sqrt(1.0/12/float64(q[k])); math.Abs(mean-0.5) > tol {
			t.Errorf("%s: mean quantile of the observation %.3f, want 0.5 ± %.3f", name, mean, tol)
		}
		if rate > bound(0.05, q[k]) {
			t.Errorf("%s: p ≤ 0.05 in %.3f of %d observations, above 0.05 + 3 SE = %.3f", name, rate, q[k], bound(0.05, q[k]))
		}
	}
	if sixth < 100 {
		t.Fatalf("only %d of %d observations have a sixth trial: the model no longer tests mixed data values", sixth, reps)
	}
}

// TestPredictiveVaryingTrialsPower: the check of trialsModel rejects an observation whose sixth
// trial is off by 4 (80 SD of a trial's noise, above every simulation), in a data value that
// about half the 2500 simulations have, in 30 of 30 repetitions.
func TestPredictiveVaryingTrialsPower(t *testing.T) {
	const m = 2500
	detected, runs := 0, 0
	for r := 0; runs < 30; r++ {
		rng := rand.New(rand.NewPCG(uint64(r), 78))
		xo := trialsModel(rng)
		if math.IsNaN(xo[5]) {
			continue
		}
		runs++
		xo[5] += 4
		res, err := PredictiveFromSimulations(trialsSims(rng, m), xo, PredictiveConfig{})
		if err != nil {
			t.Fatalf("repetition %d: %v", r, err)
		}
		if res.Reject() {
			detected++
		} else {
			t.Logf("not rejected: %s", res.Verdict())
		}
	}
	if detected < runs {
		t.Errorf("rejected %d of %d observations with a trial off by 80 SD", detected, runs)
	}
}

// TestPredictiveFewerTrialsNotDropped: simulations of fewer trials than the observation are not
// failures. Before the fix the 400 of 800 simulations with fewer than the observation's 7 trials
// were dropped (Dropped 400) and every value ranked among the other 400. Each data value now
// ranks the observation among the simulations with a value there, and where they are mixed
// tests that and having a value each at half the level; the verdict names the data values whose
// rank test cannot reach the per-test level and how many simulations would.
func TestPredictiveFewerTrialsNotDropped(t *testing.T) {
	const m = 800
	x := mat.NewDense(m, 10, nil)
	for i := range m {
		for j := range 10 {
			x.Set(i, j, math.NaN())
			if j < 3+i%8 { // 3 to 10 trials
				x.Set(i, j, float64(i))
			}
		}
	}
	xo := []float64{40.5, 40.5, 40.5, 40.5, 40.5, 40.5, 40.5, math.NaN(), math.NaN(), math.NaN()}
	res, err := PredictiveFromSimulations(x, xo, PredictiveConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if rows, _ := res.Sims.Dims(); rows != m || res.Dropped != 0 {
		t.Errorf("%d simulations kept, %d dropped; want all %d kept", rows, res.Dropped, m)
	}
	for _, c := range []struct {
		d        int
		quantile float64
		p        float64
	}{
		// every simulation has a value: 41 of 800 below, p = 2·(1+41)/801
		{0, 41.0 / 800, 84.0 / 801},
		// 400 have one (i%8 ≥ 4), 20 of them below: rank p 2·21/401, having a value p 401/801
		{6, 20.0 / 400, 2 * 42.0 / 401},
		// NaN in the observation, 500 of 800 simulations NaN: p = min(1, 2·501/801)
		{7, math.NaN(), 1},
	} {
		q, p := res.Quantile[c.d], res.PValues[c.d]
		if !(math.Abs(q-c.quantile) < 1e-15 || math.IsNaN(q) && math.IsNaN(c.quantile)) || math.Abs(p-c.p) > 1e-15 {
			t.Errorf("%s: quantile %v, p %v; want %v and %v", res.Names[c.d], q, p, c.quantile, c.p)
		}
	}
	want := "no value rejected by the predictive simulations at family-wise level 0.05"
	unjudged := "but x₄ (700), x₅ (600), x₆ (500), x₇ (400) could not be judged by rank with so few of the 800 simulations having a value there (in parentheses): a rank test reaches the per-test level from 959 simulations with a value, about 1918 simulations in all"
	if v := res.Verdict(); !strings.HasPrefix(v, want) || !strings.Contains(v, unjudged) {
		t.Errorf("verdict %q\nwant it to begin %q\nand say %q", v, want, unjudged)
	}
}

// TestPredictiveFewerTrialsVerdictSaysWhy: a flagged data value that some simulations lack says
// whether the observation's having a value there is what is rare (2 of 1000 simulations have a
// second trial) or its rank among those that have one.
func TestPredictiveFewerTrialsVerdictSaysWhy(t *testing.T) {
	const m = 1000
	x := mat.NewDense(m, 2, nil)
	for i := range m {
		x.Set(i, 0, float64(i))
		x.Set(i, 1, math.NaN())
		if i%500 == 0 { // 2 simulations of 2 trials
			x.Set(i, 1, float64(i))
		}
	}
	rare, err := PredictiveFromSimulations(x, []float64{500.5, 1.5}, PredictiveConfig{})
	if err != nil {
		t.Fatal(err)
	}
	// having a value: p = 3/1001, doubled; its rank among 2: p = 1
	if want := "x₂ (1.5 where 2 of 1000 simulations have a value, the others NaN: p = 0.00599)"; !rare.Reject() || !strings.Contains(rare.Verdict(), want) {
		t.Errorf("verdict %q, want it to say %q", rare.Verdict(), want)
	}
	for i := range m {
		if i%2 == 0 {
			x.Set(i, 1, float64(i))
		}
	}
	ranked, err := PredictiveFromSimulations(x, []float64{500.5, -3}, PredictiveConfig{})
	if err != nil {
		t.Fatal(err)
	}
	// below all 500 with a value: p = 2·(2·1/501)
	if want := "x₂ (below the simulations with a value (500 of 1000): quantile 0.000, p = 0.00798)"; !ranked.Reject() || !strings.Contains(ranked.Verdict(), want) {
		t.Errorf("verdict %q, want it to say %q", ranked.Verdict(), want)
	}
}

// TestPredictiveCheckFuncKeepsPadding: PredictiveCheckFunc with a SimFunc of trialsData, which
// pads data sets of fewer than 10 trials with NaN, keeps the padded simulations and judges them
// per data value as PredictiveFromSimulations does; only the failures (nil, or a value +Inf)
// are dropped. Before the fix it simulated through sbi.Simulate, which drops every row holding
// a NaN: of 600 draws only those of 10 trials were left, from the largest θ, and every value
// of the observation was ranked among them.
func TestPredictiveCheckFuncKeepsPadding(t *testing.T) {
	const draws = 600
	var failed atomic.Int64
	sim := func(rng *rand.Rand, theta []float64) []float64 {
		switch {
		case theta[0] > 2:
			failed.Add(1)
			return nil
		case theta[0] < -2:
			failed.Add(1)
			x := trialsData(rng, theta[0])
			x[0] = math.Inf(1)
			return x
		}
		return trialsData(rng, theta[0])
	}
	xo := trialsData(rand.New(rand.NewPCG(1, 2)), 0.1) // 7 trials
	res, err := PredictiveCheckFunc(gaussPost{mu: []float64{0}, sd: 1}, sim, xo, PredictiveConfig{Draws: draws, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := res.Sims.Dims()
	if res.Dropped != int(failed.Load()) || m+res.Dropped != draws {
		t.Errorf("%d simulations kept and %d dropped of %d; want the %d failures dropped and the rest kept", m, res.Dropped, draws, failed.Load())
	}
	padded := 0
	for i := range m {
		if math.IsNaN(res.Sims.At(i, 9)) {
			padded++
		}
	}
	if padded < m/2 {
		t.Errorf("%d of %d simulations kept are padded, want most (fewer than 10 trials)", padded, m)
	}
	if q := res.Quantile[0]; !(q > 0.2 && q < 0.8) {
		t.Errorf("quantile of the first trial of an observation of θ = 0.1 is %.3f, want it near the middle; %s", q, res)
	}
}

// TestPredictiveVerdictNoRankedValue: a result whose only tested data value is NaN in the
// observation (the other is Constant) (compared as present or absent, never ranked) has a verdict. Before the fix the
// verdict of fewer than 119 simulations asked for the count of simulations with a value in
// data value −1, and Verdict, String and MIMEBundle panicked.
func TestPredictiveVerdictNoRankedValue(t *testing.T) {
	x := mat.NewDense(50, 2, nil)
	for i := range 50 {
		x.Set(i, 0, 1) // constant, not tested
		x.Set(i, 1, float64(i))
		if i%2 == 0 {
			x.Set(i, 1, math.NaN())
		}
	}
	res, err := PredictiveFromSimulations(x, []float64{1, math.NaN()}, PredictiveConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var v string
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("Verdict panicked: %v", p)
			}
		}()
		v = res.Verdict()
	}()
	if want := "inconclusive: with 50 simulations"; !strings.HasPrefix(v, want) {
		t.Errorf("verdict %q, want it to begin %q", v, want)
	}
}

// TestPredictiveSparseValueVerdict: the verdict is inconclusive only when no rank test can
// reach the per-test level. Of 1000 simulations of 8 values, the eighth present in 100: the
// other 7 are judged, none rejects, and the verdict says so and names x₈ as not judged by rank,
// never "consistent". Before the fix the one sparse value made the whole verdict inconclusive.
// With 300 simulations of 2 values present in 150 and 120 (and a third, 0 in every simulation
// and in the observation, that keeps every row), no rank test can reach 0.05/4: the verdict is
// inconclusive and names x₁, the nearer.
func TestPredictiveSparseValueVerdict(t *testing.T) {
	sims := func(m int, present []int) *mat.Dense {
		x := mat.NewDense(m, len(present), nil)
		for i := range m {
			for d, k := range present {
				x.Set(i, d, math.NaN())
				switch {
				case k < 0: // 0 in every simulation: Constant, not tested
					x.Set(i, d, 0)
				case i < k:
					x.Set(i, d, float64((i*7919+d*104729)%m)) // a permutation of 0 … m−1 per value
				}
			}
		}
		return x
	}
	for _, c := range []struct {
		name    string
		m       int
		present []int
		xo      []float64
		begin   string
		say     string
	}{
		{"one sparse value", 1000, []int{1000, 1000, 1000, 1000, 1000, 1000, 1000, 100}, []float64{500.5, 400.5, 600.5, 500.5, 300.5, 700.5, 450.5, 50.5},
			"no value rejected by the predictive simulations at family-wise level 0.05, nor jointly by both joint tests",
			"but x₈ (100) could not be judged by rank with so few of the 1000 simulations having a value there (in parentheses): a rank test reaches the per-test level from 799 simulations with a value, about 7990 simulations in all"},
		{"no rank test can reach", 300, []int{150, 120, -1}, []float64{100.5, 60.5, 0},
			"inconclusive: no rank test can reach the per-test level 0.0125 (Bonferroni over 2 values and 2 joint tests): x₁, which has a value in the most simulations, 150 of 300, has the smallest rank p-value 0.0265",
			"its rank test can reach the level from 319 simulations with a value there, about 638 simulations in all"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := PredictiveFromSimulations(sims(c.m, c.present), c.xo, PredictiveConfig{})
			if err != nil {
				t.Fatal(err)
			}
			v := res.Verdict()
			if res.Reject() || !strings.HasPrefix(v, c.begin) || !strings.Contains(v, c.say) || strings.Contains(v, "consistent") {
				t.Errorf("verdict %q\nwant it to begin %q\nand say %q, never \"consistent\"", v, c.begin, c.say)
			}
		})
	}
}

// TestPredictivePartlyNaNListed: NaN in some values of a simulation is read as padding, not as
// a failure (Dropped stays 0), so String and MIMEBundle list the tested values that are NaN in
// some simulations but not all, with how many: a simulator that meant NaN as a failed summary
// sees it there. Before, nothing said so. x₁ is never NaN, x₂ NaN in 30 of 100, x₃ equal in
// every simulation (not tested) and x₄ NaN in every simulation: only x₂ is listed.
func TestPredictivePartlyNaNListed(t *testing.T) {
	const m = 100
	x := mat.NewDense(m, 4, nil)
	for i := range m {
		x.SetRow(i, []float64{float64(i), float64(i), 1, math.NaN()})
		if i%10 < 3 {
			x.Set(i, 1, math.NaN())
		}
	}
	res, err := PredictiveFromSimulations(x, []float64{50.5, 50.5, 1, math.NaN()}, PredictiveConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Dropped != 0 {
		t.Errorf("Dropped %d, want 0: NaN in some values is padding", res.Dropped)
	}
	want := "NaN in some simulations (padding, or a failed summary): x₂ in 30 of 100\n"
	if s := res.String(); !strings.Contains(s, want) {
		t.Errorf("String\n%s\nwant it to hold %q", s, want)
	}
	if h, _ := res.MIMEBundle()["text/html"].(string); !strings.Contains(h, "<tr><th>NaN</th><td colspan=3>NaN in some simulations (padding, or a failed summary): x₂ in 30 of 100</td></tr>") {
		t.Errorf("HTML %q, want a row listing x₂ in 30 of 100", h)
	}
	full, err := PredictiveFromSimulations(x.Slice(0, m, 0, 1).(*mat.Dense), []float64{50.5}, PredictiveConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if s := full.String(); strings.Contains(s, "NaN in some") {
		t.Errorf("no value NaN, yet String says\n%s", s)
	}
}
