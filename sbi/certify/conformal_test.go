package certify

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// conformalCoverage is the exact coverage of the conformal region {θ : −log q(θ|x) ≤ τ} of
// scaledPosterior{s} under the conjugate model: the region is |θ − x/2| ≤ r·s·√½ with
// r² = 2(τ − log(s√½) − ½ log 2π), and θ | x ~ N(x/2, ½), so it covers with probability
// 2Φ(s·r) − 1 whatever x.
func conformalCoverage(s, tau float64) float64 {
	r2 := 2 * (tau - math.Log(s*math.Sqrt(0.5)) - 0.5*math.Log(2*math.Pi))
	if r2 <= 0 {
		return 0
	}
	return 2*distuv.UnitNormal.CDF(s*math.Sqrt(r2)) - 1
}

// exceedances calibrates conformal regions of an over-confident posterior (s = 0.7) on reps
// independent sets of n pairs and counts the calibrations whose exact coverage misses some
// level by more than the final test's one-sided margin z_{1−α}·√(L(1−L)/test).
func exceedances(t *testing.T, n, test, reps int, levels []float64, alpha float64, seed uint64) int {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 17))
	est := scaledPosterior{0.7}
	z := distuv.UnitNormal.Quantile(1 - alpha)
	count := 0
	for range reps {
		theta, x := mat.NewDense(n, 1, nil), mat.NewDense(n, 1, nil)
		for i := range n {
			th := rng.NormFloat64()
			theta.Set(i, 0, th)
			x.Set(i, 0, th+rng.NormFloat64())
		}
		confs, err := conformalAt(est, theta, x, levels)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range levels {
			if math.Abs(conformalCoverage(0.7, confs[i].Threshold)-l) > z*math.Sqrt(l*(1-l)/float64(test)) {
				count++
				break
			}
		}
	}
	return count
}

// The conformal calibration set is sized against the final test set: by default
// ConformalTestRatio times it, so that one calibration's coverage (spread √(L(1−L)/n))
// rarely misses the level by more than the final test's own margin. Each calibration's
// coverage is computed exactly (conformalCoverage), over reps independent calibrations.
//
// Level: at n = 4·test a miss needs a deviation of 2·z_{0.95} ≈ 3.3 sd at some level
// (probability ≈ 0.004 over the four levels); the test allows up to the (1 − 0.001) binomial
// quantile of rate 0.02, so it fails a correctly sized plan with probability < 0.001.
// Power: the sizing of before (a check set of 500 against a final test of 1,000, as in the
// full run of notebooks/certified-posterior-evidence) misses by more than 1.16 sd at level
// 0.5 alone with probability ≈ 0.25 (over the four levels, measured: more than half of the
// calibrations); the test must reject it.
func TestConformalSetSizedAgainstTest(t *testing.T) {
	const reps, alpha = 200, 0.05
	levels := DefaultLevels()
	cfg := Config{Simulations: 10000, TestSimulations: 1000, CheckSimulations: 500, Remedies: []Remedy{RemedyConformal}}.withDefaults()
	b, _, err := plan(cfg, false, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if b.Conformal != ConformalTestRatio*b.Test {
		t.Fatalf("default conformal set %d, want %d × the final test set %d", b.Conformal, ConformalTestRatio, b.Test)
	}
	limit := binomQuantile(reps, 0.02, 0.999)
	got := exceedances(t, b.Conformal, b.Test, reps, levels, alpha, 1)
	old := exceedances(t, b.Check, b.Test, reps, levels, alpha, 2)
	t.Logf("misses of the final test's margin: %d of %d at %d calibration pairs, %d of %d at %d (allowed %d)", got, reps, b.Conformal, old, reps, b.Check, limit)
	if got > limit {
		t.Errorf("level: %d of %d calibrations on %d pairs miss a level by more than the final test's margin (%d pairs), allowed %d",
			got, reps, b.Conformal, b.Test, limit)
	}
	if old <= limit {
		t.Errorf("power: calibrations on a check set of %d pairs miss the final test's margin (%d pairs) %d of %d times, not more than %d: the test cannot tell the old sizing",
			b.Check, b.Test, old, reps, limit)
	}
}

// binomQuantile is the smallest k with P(Binomial(n, p) ≤ k) ≥ q.
func binomQuantile(n int, p, q float64) int {
	b := distuv.Binomial{N: float64(n), P: p}
	for k := 0; k < n; k++ {
		if b.CDF(float64(k)) >= q {
			return k
		}
	}
	return n
}
