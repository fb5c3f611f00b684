package diag

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/task"
)

// TestMisspecificationLevelAndPower runs the check on SLCP (8 data values: four 2-D points)
// 200 times, each with 600 fresh simulations (300 reference, 300 calibration).
//
// Level: an observation simulated from the model is rejected at α = 0.05 at most α + 3 SE
// (SE = √(0.05·0.95/200) = 0.015: 0.096) of the time. Measured: 0.045.
// Power: the same observation contaminated by a sensor glitch, one data value off by 8
// standard deviations of the simulations, is rejected in 0.89 of the repetitions; the test
// asks for 0.75. (A glitch of 5 SD in one of 8 values is caught in 0.67 of them.)
func TestMisspecificationLevelAndPower(t *testing.T) {
	const reps, alpha = 200, 0.05
	tk := task.SLCP()
	rejected, detected := 0, 0
	for r := range reps {
		rng := rand.New(rand.NewPCG(uint64(r), 77))
		x := tk.Simulate(rng, tk.Prior().Sample(rng, 600))
		xo := tk.Simulate(rng, tk.Prior().Sample(rng, 1)).RawRowView(0)
		cfg := MisspecConfig{Seed: uint64(r), Reference: 300, Calibration: 300}
		res, err := Misspecification(nil, x, xo, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Reject() {
			rejected++
		}
		k := r % 8
		col := mat.Col(nil, k, x)
		var m, v float64
		for _, c := range col {
			m += c / float64(len(col))
		}
		for _, c := range col {
			v += (c - m) * (c - m) / float64(len(col)-1)
		}
		bad := append([]float64(nil), xo...)
		bad[k] += 8 * math.Sqrt(v)
		res, err = Misspecification(nil, x, bad, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Reject() {
			detected++
		}
	}
	bound := alpha + 3*math.Sqrt(alpha*(1-alpha)/reps)
	level, power := float64(rejected)/reps, float64(detected)/reps
	t.Logf("level %.3f, power %.3f", level, power)
	if level > bound {
		t.Errorf("rejected %.3f of observations from the model, above α + 3 SE = %.3f", level, bound)
	}
	if power < 0.75 {
		t.Errorf("detected %.3f of contaminated observations, want ≥ 0.75", power)
	}
}

// TestMisspecificationResult checks the p-value against its definition, the verdicts and the
// errors.
func TestMisspecificationResult(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := mat.NewDense(400, 2, nil)
	for i := range 400 {
		x.Set(i, 0, rng.NormFloat64())
		x.Set(i, 1, 100*rng.NormFloat64()) // another scale: standardization makes it count alike
	}
	in, err := Misspecification(nil, x, []float64{0.2, -30}, MisspecConfig{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if in.Reference != 200 || in.Calibration != 200 || in.Space != "standardized x" {
		t.Errorf("%d reference and %d calibration simulations in %s, want 200 and 200 in standardized x", in.Reference, in.Calibration, in.Space)
	}
	above := 0
	for _, v := range in.Null {
		if v >= in.Statistic {
			above++
		}
	}
	if want := float64(1+above) / 201; in.PValue != want {
		t.Errorf("p-value %v, want %v", in.PValue, want)
	}
	if in.Reject() || !strings.HasPrefix(in.Verdict(), "consistent with the simulations") {
		t.Errorf("a typical observation: %s", in)
	}
	out, err := Misspecification(nil, x, []float64{0.2, 600}, MisspecConfig{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Reject() || !strings.Contains(out.Verdict(), "than 200 of 200 further simulations are") {
		t.Errorf("an observation 6 SD out in the second column: %s", out)
	}
	for _, c := range []struct {
		name string
		x    *mat.Dense
		xo   []float64
		want string
	}{
		{"width", x, []float64{1}, "1 values"},
		{"NaN", x, []float64{math.NaN(), 1}, "NaN"},
		{"few", mat.NewDense(10, 2, nil), []float64{0, 0}, "at least 40"},
	} {
		if _, err := Misspecification(nil, c.x, c.xo, MisspecConfig{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// TestChecksOfObservationAtExtremeScales: the misspecification check and the predictive
// check standardize the simulations, so data in units of 1e200 or 1e-200 give the statistics
// of the same data in units of 1 (to rounding): an observation 8 sd out is flagged and a typical
// one is not. With sums of squares that overflow or underflow, every standardized value is 0
// (or stays at 1e-200) and no observation is ever atypical.
func TestChecksOfObservationAtExtremeScales(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	x := mat.NewDense(400, 2, nil)
	for i := range 400 {
		x.Set(i, 0, rng.NormFloat64())
		x.Set(i, 1, 3+0.5*rng.NormFloat64())
	}
	typical, atypical := []float64{0.3, 3.2}, []float64{8, 3}
	scaled := func(v []float64, s float64) []float64 {
		out := make([]float64, len(v))
		for j := range v {
			out[j] = v[j] * s
		}
		return out
	}
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	for _, xo := range [][]float64{typical, atypical} {
		ref, err := Misspecification(nil, x, xo, MisspecConfig{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		pref, err := PredictiveFromSimulations(x, xo, PredictiveConfig{})
		if err != nil {
			t.Fatal(err)
		}
		if want := xo[0] == 8; ref.Reject() != want || pref.Reject() != want {
			t.Fatalf("x_o %v in units of 1: misspecification rejects %v, predictive check %v; want %v", xo, ref.Reject(), pref.Reject(), want)
		}
		for _, s := range []float64{1e200, 1e-200} {
			var xs mat.Dense
			xs.Scale(s, x)
			got, err := Misspecification(nil, &xs, scaled(xo, s), MisspecConfig{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if !close(got.Statistic, ref.Statistic) || got.PValue != ref.PValue {
				t.Errorf("misspecification of %v in units of %g: MMD² %v, p %v; in units of 1: %v, %v", xo, s, got.Statistic, got.PValue, ref.Statistic, ref.PValue)
			}
			pgot, err := PredictiveFromSimulations(&xs, scaled(xo, s), PredictiveConfig{})
			if err != nil {
				t.Fatal(err)
			}
			if !close(pgot.Mahalanobis, pref.Mahalanobis) || !close(pgot.MMD, pref.MMD) || pgot.Reject() != pref.Reject() {
				t.Errorf("predictive check of %v in units of %g: Mahalanobis %v, MMD² %v, reject %v; in units of 1: %v, %v, %v",
					xo, s, pgot.Mahalanobis, pgot.MMD, pgot.Reject(), pref.Mahalanobis, pref.MMD, pref.Reject())
			}
		}
	}
}

// TestChecksRefuseNaNAlpha: α = NaN compares false with every bound and used to pass the
// range checks.
func TestChecksRefuseNaNAlpha(t *testing.T) {
	x := mat.NewDense(50, 1, nil)
	for i := range 50 {
		x.Set(i, 0, float64(i))
	}
	if _, err := Misspecification(nil, x, []float64{3}, MisspecConfig{Alpha: math.NaN()}); err == nil {
		t.Error("misspecification check with Alpha NaN: no error")
	}
	if _, err := PredictiveFromSimulations(x, []float64{3}, PredictiveConfig{Alpha: math.NaN()}); err == nil {
		t.Error("predictive check with Alpha NaN: no error")
	}
}

// TestMisspecificationTooFewCalibrationSimulations: with m calibration simulations the
// smallest p-value is 1/(m + 1). At m = 10 and α = 0.05 no observation can be rejected, and
// before the fix one 50 standard deviations away from every simulation was called "consistent
// with the simulations"; the verdict says inconclusive and CanReject is false. At m = 19 the
// smallest p-value is 1/20 = α exactly, so the same observation is rejected (p ≤ α).
func TestMisspecificationTooFewCalibrationSimulations(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := mat.NewDense(200, 1, nil)
	for i := range 200 {
		x.Set(i, 0, rng.NormFloat64())
	}
	res, err := Misspecification(nil, x, []float64{50}, MisspecConfig{Reference: 50, Calibration: 10})
	if err != nil {
		t.Fatal(err)
	}
	if v := res.Verdict(); res.Reject() || res.CanReject() || !strings.HasPrefix(v, "inconclusive") || strings.Contains(v, "consistent") {
		t.Errorf("m = 10, α = 0.05, p = %.3g: reject %v, can reject %v, verdict %q; want inconclusive", res.PValue, res.Reject(), res.CanReject(), v)
	}
	res, err = Misspecification(nil, x, []float64{50}, MisspecConfig{Reference: 50, Calibration: 19})
	if err != nil {
		t.Fatal(err)
	}
	if v := res.Verdict(); !res.Reject() || !res.CanReject() || !strings.HasPrefix(v, "atypical") {
		t.Errorf("m = 19, α = 0.05, p = %.3g: reject %v, can reject %v, verdict %q; want atypical", res.PValue, res.Reject(), res.CanReject(), v)
	}
}

// sumSummaries is gaussModel with an embedding (sbi.Summarizer) of three outputs: x and the
// sum of its values.
type sumSummaries struct{ gaussModel }

func (m sumSummaries) Summaries(x *mat.Dense) *mat.Dense {
	n, _ := x.Dims()
	out := mat.NewDense(n, 3, nil)
	for i := range n {
		out.Set(i, 0, x.At(i, 0))
		out.Set(i, 1, x.At(i, 1))
		out.Set(i, 2, x.At(i, 0)+x.At(i, 1))
	}
	return out
}

// TestMisspecificationVerdictSaysHeldOut: in an embedding's space the p-value is exact only for
// calibration simulations the embedding was not fitted to, which the check cannot tell, so
// both verdicts say the level holds if they were held out from training; in standardized x
// (no estimator) they do not.
func TestMisspecificationVerdictSaysHeldOut(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	x := mat.NewDense(200, 2, nil)
	for i := range 200 {
		x.Set(i, 0, rng.NormFloat64())
		x.Set(i, 1, rng.NormFloat64())
	}
	const note = "held out from the estimator's training"
	m := gaussModel{dim: 2, tau: 1, s: 1, width: 1}
	for _, c := range []struct {
		name string
		est  sbi.Amortized
		xo   []float64
		want bool
	}{
		{"embedding, typical", sumSummaries{m}, []float64{0.1, -0.2}, true},
		{"embedding, atypical", sumSummaries{m}, []float64{8, 8}, true},
		{"standardized x, typical", nil, []float64{0.1, -0.2}, false},
		{"standardized x, atypical", nil, []float64{8, 8}, false},
	} {
		r, err := Misspecification(c.est, x, c.xo, MisspecConfig{Seed: 1})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := strings.Contains(r.Verdict(), note); got != c.want {
			t.Errorf("%s (%s): verdict %q; saying %q: %v, want %v", c.name, r.Space, r.Verdict(), note, got, c.want)
		}
	}
}
