package calib

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestConformalDisplayStatesGuarantee: the display says what is guaranteed (the average over
// calibration sets and x) and how far one calibration set's coverage varies (Beta(k, n+1−k)),
// not that this calibration's coverage lies in [1−α, 1−α+1/(n+1)].
func TestConformalDisplayStatesGuarantee(t *testing.T) {
	m := linGaussModel{d: 1, s0: 2, sigma: 1}
	rng := rand.New(rand.NewPCG(1, 1))
	th := m.prior().Sample(rng, 199)
	c, err := NewConformal(m.estimator(0.5, 0), th, m.simulate(rng, th), 0.1)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := c.MIMEBundle()["text/plain"].(string)
	// n = 199, k = 180: Beta(180, 20) has mean 0.9 and sd 0.0212; its 2.5% and 97.5% quantiles
	// are about 0.855 and 0.938.
	for _, want := range []string{"averaged over calibration sets", "[0.9, 0.905]", "this one calibration set (n = 199)", "[0.855, 0.938]", "no coverage is promised at any particular x"} {
		if !strings.Contains(text, want) {
			t.Errorf("display %q lacks %q", text, want)
		}
	}
	if strings.Contains(text, "coverage is guaranteed in") {
		t.Errorf("display %q still says this calibration's coverage is guaranteed in the band", text)
	}
	res := &CANVIResult{Selected: 0, Candidates: []CANVICandidate{{Threshold: c.Threshold}}, Conformal: c}
	if text, _ := res.MIMEBundle()["text/plain"].(string); !strings.Contains(text, "averaged over calibration sets") || strings.Contains(text, "coverage ≥") {
		t.Errorf("CANVI display %q: want the guarantee stated as an average over calibration sets", text)
	}
	g := &GroupConformal{Alpha: 0.1, Thresholds: []float64{1}, N: []int{199}}
	if text, _ := g.MIMEBundle()["text/plain"].(string); !strings.Contains(text, "mean coverage over calibration sets") || !strings.Contains(text, "[0.855, 0.938]") {
		t.Errorf("group display %q: want the guarantee as a mean over calibration sets and one set's 95%% range", text)
	}
}

// TestMeasureCoverageLevelAndPower: on test pairs exchangeable with the calibration pairs the
// Beta-Binomial p-value rejects at 5% no more often than 5% (up to 3 binomial sd over 300
// repetitions, 0.038); calibrated on pairs from a simulator with half the noise, the regions
// are too small for the real one (the score's residual variance drops from 0.8 to 0.32) and
// the test must find the coverage below the guarantee in at least 90% of the repetitions.
func TestMeasureCoverageLevelAndPower(t *testing.T) {
	m := linGaussModel{d: 1, s0: 2, sigma: 1}
	quiet := linGaussModel{d: 1, s0: 2, sigma: 0.5} // a simulator with half the noise
	est := m.estimator(0.5, 0)
	const reps, nCal, nTest = 300, 200, 300
	rng := rand.New(rand.NewPCG(2, 3))
	var falseAlarms, detected int
	var meanCov float64
	for range reps {
		thT := m.prior().Sample(rng, nTest)
		xT := m.simulate(rng, thT)
		for _, calModel := range []linGaussModel{m, quiet} {
			th := calModel.prior().Sample(rng, nCal)
			c, err := NewConformal(est, th, calModel.simulate(rng, th), 0.1)
			if err != nil {
				t.Fatal(err)
			}
			r, err := c.MeasureCoverage(thT, xT)
			if err != nil {
				t.Fatal(err)
			}
			if r.Lower > r.Coverage || r.Upper < r.Coverage || r.SetLower > 0.9 || r.SetUpper < 0.9 {
				t.Fatalf("interval [%v, %v] around %v, calibration range [%v, %v] around 0.9", r.Lower, r.Upper, r.Coverage, r.SetLower, r.SetUpper)
			}
			if calModel == m {
				meanCov += r.Coverage / reps
				if r.PValue <= 0.05 {
					falseAlarms++
				}
			} else if !r.Consistent() && strings.HasPrefix(r.Verdict(), "below") {
				detected++
			}
		}
	}
	t.Logf("mean coverage %.4f, false alarms %d/%d, detected %d/%d", meanCov, falseAlarms, reps, detected, reps)
	if math.Abs(meanCov-0.9) > 4*math.Sqrt(0.09*(1.0/nCal+1.0/nTest)/reps) {
		t.Errorf("mean coverage %.4f over %d calibrations, want 0.9 (the guarantee's average)", meanCov, reps)
	}
	if float64(falseAlarms)/reps > 0.05+3*math.Sqrt(0.05*0.95/reps) {
		t.Errorf("%d of %d exchangeable runs rejected at 5%%", falseAlarms, reps)
	}
	if float64(detected)/reps < 0.9 {
		t.Errorf("only %d of %d runs calibrated on the wrong simulator were found below the guarantee", detected, reps)
	}
}

// TestClopperPearsonClosedForm: for 0 of n the upper bound is 1 − 0.025^{1/n}, for n of n the
// lower bound is 0.025^{1/n}.
func TestClopperPearsonClosedForm(t *testing.T) {
	for _, n := range []int{10, 300} {
		lo, hi := clopperPearson(0, n)
		if lo != 0 || math.Abs(hi-(1-math.Pow(0.025, 1/float64(n)))) > 1e-9 {
			t.Errorf("0 of %d: [%v, %v]", n, lo, hi)
		}
		lo, hi = clopperPearson(n, n)
		if hi != 1 || math.Abs(lo-math.Pow(0.025, 1/float64(n))) > 1e-9 {
			t.Errorf("%d of %d: [%v, %v]", n, n, lo, hi)
		}
	}
}
