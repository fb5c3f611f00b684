package diag

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/task"
)

// TestPredictiveCheckLevelAndPower runs the prior predictive check of gaussian_linear
// (x ~ N(θ, 0.1·I₁₀) under θ ~ N(0, 0.1·I₁₀): each value has SD √0.2 ≈ 0.45) 200 times with
// 500 simulations each; 500 is the fewest for which 2/(m+1) reaches the Bonferroni level
// 0.05/12 of 10 values and 2 joint tests.
//
// Level: an observation from the model is rejected at family-wise α = 0.05 at most α + 3 SE
// (SE = 0.015: 0.096) of the time. Measured: 0.045.
// Power: the observation with one value off by 2.5 (5.6 SD, a contaminated measurement) is
// rejected in 0.995 of the repetitions; with one off by 1.5 (3.4 SD) in 0.685 (not asserted).
func TestPredictiveCheckLevelAndPower(t *testing.T) {
	const reps, alpha = 200, 0.05
	tk := task.GaussianLinear()
	var rejected, detected, weak int
	for r := range reps {
		rng := rand.New(rand.NewPCG(uint64(r), 5))
		xo := tk.Simulate(rng, tk.Prior().Sample(rng, 1)).RawRowView(0)
		cfg := PredictiveConfig{Draws: 500, Seed: uint64(r), Label: "prior predictive"}
		res, err := PredictiveCheck(tk.Prior(), tk, xo, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Reject() {
			rejected++
		}
		for _, c := range []struct {
			off   float64
			count *int
		}{{2.5, &detected}, {1.5, &weak}} {
			bad := append([]float64(nil), xo...)
			bad[r%10] += c.off
			res, err := PredictiveFromSimulations(res.Sims, bad, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if res.Reject() {
				*c.count++
			}
		}
	}
	level, power := float64(rejected)/reps, float64(detected)/reps
	t.Logf("level %.3f, power %.3f at 5.6 SD, %.3f at 3.4 SD", level, power, float64(weak)/reps)
	if bound := alpha + 3*math.Sqrt(alpha*(1-alpha)/reps); level > bound {
		t.Errorf("rejected %.3f of observations from the model, above α + 3 SE = %.3f", level, bound)
	}
	if power < 0.9 {
		t.Errorf("rejected %.3f of contaminated observations, want ≥ 0.9", power)
	}
}

// TestPredictiveResult checks the quantiles and p-values against their definitions, the
// joint tests, the verdicts, a per-row simulator and the errors.
func TestPredictiveResult(t *testing.T) {
	x := mat.NewDense(99, 2, nil)
	for i := range 99 {
		x.Set(i, 0, float64(i)) // 0 … 98
		x.Set(i, 1, float64(i%3))
	}
	r, err := PredictiveFromSimulations(x, []float64{10, 1}, PredictiveConfig{})
	if err != nil {
		t.Fatal(err)
	}
	// 10 of 99 below, one equal: quantile 10.5/99; p = 2·(1 + 11)/100.
	if math.Abs(r.Quantile[0]-10.5/99) > 1e-15 || math.Abs(r.PValues[0]-0.24) > 1e-15 {
		t.Errorf("value 0: quantile %v, p %v; want %v and 0.24", r.Quantile[0], r.PValues[0], 10.5/99)
	}
	// 33 below, 33 equal: quantile 49.5/99, p = min(1, 2·67/100) = 1.
	if math.Abs(r.Quantile[1]-0.5) > 1e-15 || r.PValues[1] != 1 {
		t.Errorf("value 1: quantile %v, p %v; want 0.5 and 1", r.Quantile[1], r.PValues[1])
	}
	if r.Names[0] != "x₁" || r.Names[1] != "x₂" {
		t.Errorf("names %q", r.Names)
	}
	if !strings.HasPrefix(r.Verdict(), "inconclusive: with 99 simulations") {
		t.Errorf("99 simulations cannot reach 0.05/4: %s", r.Verdict())
	}

	// A Gaussian cloud: the joint tests flag a point that is typical per value but not jointly.
	rng := rand.New(rand.NewPCG(9, 9))
	g := mat.NewDense(2000, 2, nil)
	for i := range 2000 {
		a := rng.NormFloat64()
		g.Set(i, 0, a)
		g.Set(i, 1, 0.98*a+0.2*rng.NormFloat64())
	}
	joint, err := PredictiveFromSimulations(g, []float64{1.5, -1.5}, PredictiveConfig{Label: "posterior predictive"})
	if err != nil {
		t.Fatal(err)
	}
	if len(joint.Flagged()) != 0 || !joint.JointFlagged() || !strings.Contains(joint.Verdict(), "jointly (Mahalanobis") {
		t.Errorf("an off-diagonal point of a correlated cloud: %s", joint)
	}
	typical, err := PredictiveFromSimulations(g, []float64{0.3, 0.25}, PredictiveConfig{Label: "posterior predictive"})
	if err != nil {
		t.Fatal(err)
	}
	if typical.Reject() || !strings.HasPrefix(typical.Verdict(), "consistent with the posterior predictive") {
		t.Errorf("a typical point: %s", typical)
	}
	if h, _ := joint.MIMEBundle()["text/html"].(string); !strings.Contains(h, "Posterior predictive check") {
		t.Errorf("HTML %q", h)
	}

	// A per-row simulator with failures: the failed ones are counted.
	sim := func(rng *rand.Rand, theta []float64) []float64 {
		if theta[0] > 1.5 {
			return nil
		}
		return []float64{theta[0] + 0.1*rng.NormFloat64()}
	}
	prior := gaussPost{mu: []float64{0}, sd: 1}
	f, err := PredictiveCheckFunc(prior, sim, []float64{0.1}, PredictiveConfig{Draws: 400, Label: "prior predictive"})
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := f.Sims.Dims(); f.Dropped == 0 || m+f.Dropped != 400 {
		t.Errorf("%d simulations kept, %d dropped of 400", m, f.Dropped)
	}

	for _, c := range []struct {
		name string
		x    *mat.Dense
		xo   []float64
		cfg  PredictiveConfig
		want string
	}{
		{"width", x, []float64{1}, PredictiveConfig{}, "1 values"},
		{"Inf", x, []float64{math.Inf(1), 1}, PredictiveConfig{}, "+Inf"},
		{"few", mat.NewDense(10, 2, nil), []float64{0, 0}, PredictiveConfig{}, "at least 20"},
		{"names", x, []float64{0, 0}, PredictiveConfig{Names: []string{"a"}}, "1 names for 2"},
	} {
		if _, err := PredictiveFromSimulations(c.x, c.xo, c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// singularSims returns 400 simulations of two data values whose covariance is singular: the
// second value is constant (1) or a multiple of the first (2·first), with the first N(0, 1).
func singularSims(constant bool) *mat.Dense {
	rng := rand.New(rand.NewPCG(3, 4))
	x := mat.NewDense(400, 2, nil)
	for i := range 400 {
		v := rng.NormFloat64()
		x.Set(i, 0, v)
		if constant {
			x.Set(i, 1, 1)
		} else {
			x.Set(i, 1, 2*v)
		}
	}
	return x
}

// TestPredictiveSingularCovariance: when the simulations' covariance is singular (one value a
// multiple of another) the Mahalanobis distance is undefined and must be NaN, as documented.
// Before the fix rounding left a covariance with entries of order 1e-34 that Cholesky
// accepted, and the distances were noise: an observation equal to every simulation in a
// constant value and typical in the other (0.1 SD) was called atypical "jointly (Mahalanobis
// p = 0.005)". A constant value equal to the observation is now left out of the joint tests
// (Constant), so there the distance is that of the other value, and nothing rejects either.
func TestPredictiveSingularCovariance(t *testing.T) {
	for _, c := range []struct {
		name     string
		constant bool
		xo       []float64
		nan      bool // Mahalanobis not computed
	}{{"constant value", true, []float64{0.1, 1}, false}, {"collinear values", false, []float64{0.1, 0.2}, true}} {
		res, err := PredictiveFromSimulations(singularSims(c.constant), c.xo, PredictiveConfig{})
		if err != nil {
			t.Fatal(err)
		}
		if math.IsNaN(res.MahalanobisP) != c.nan || res.Reject() {
			t.Errorf("%s: Mahalanobis %v (p %v), MMD p %v, reject %v: want NaN %v and no rejection; verdict %q",
				c.name, res.Mahalanobis, res.MahalanobisP, res.MMDP, res.Reject(), c.nan, res.Verdict())
		}
	}
}

// TestPredictiveVerdictNamesTheJointTestsThatRan: a data value that is a multiple of another
// in every simulation makes the first half's covariance singular, so the Mahalanobis test is
// not computed (NaN). Before the fix the verdict still said "every value
// and both joint tests" were consistent; it names only the MMD test and says why Mahalanobis
// is missing. The decision itself (Reject) rests on the tests that ran and is unchanged.
func TestPredictiveVerdictNamesTheJointTestsThatRan(t *testing.T) {
	res, err := PredictiveFromSimulations(singularSims(false), []float64{0.1, 0.2}, PredictiveConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(res.MahalanobisP) || math.IsNaN(res.MMDP) || res.Reject() {
		t.Fatalf("Mahalanobis p %v, MMD p %v, reject %v: want NaN, a number, false", res.MahalanobisP, res.MMDP, res.Reject())
	}
	v := res.Verdict()
	if strings.Contains(v, "both joint tests") || !strings.Contains(v, "Mahalanobis not computed") {
		t.Errorf("verdict %q: want it to name the MMD test alone and say Mahalanobis was not computed", v)
	}
}

// TestPredictiveInconclusiveCount: with too few simulations for any rank p-value 2/(m+1) to
// reach the per-test level, the verdict says so of the rank tests (a padding value's p-value
// can be as small as 1/(m+1)) and names the fewest simulations that reach it: 159 for two
// values at 0.05/4, as 158 stay inconclusive and 159 decide.
func TestPredictiveInconclusiveCount(t *testing.T) {
	verdict := func(m int) string {
		x := mat.NewDense(m, 2, nil)
		for i := range m {
			x.Set(i, 0, float64(i))
			x.Set(i, 1, float64(i%3))
		}
		r, err := PredictiveFromSimulations(x, []float64{10, 1}, PredictiveConfig{})
		if err != nil {
			t.Fatal(err)
		}
		return r.Verdict()
	}
	if v := verdict(99); !strings.Contains(v, "the smallest rank p-value is 0.02,") || !strings.HasSuffix(v, "the rank tests can reach it from 159 simulations") {
		t.Errorf("99 simulations: %s", v)
	}
	if v := verdict(158); !strings.HasPrefix(v, "inconclusive: with 158 simulations") {
		t.Errorf("158 simulations cannot reach 0.05/4: %s", v)
	}
	if v := verdict(159); strings.HasPrefix(v, "inconclusive") {
		t.Errorf("159 simulations reach 0.05/4: %s", v)
	}
	if m := rankReach(1e-300); !(m >= 1.99e300 && m <= 2.01e300) {
		t.Errorf("rankReach(1e-300) = %g, want about 2e300", m)
	}
}
