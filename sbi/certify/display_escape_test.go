package certify

import (
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/diag"
)

// A certificate read back with Load holds whatever strings its file held: every one that the
// display shows must come out as text, in the table and in the plot's tooltips alike.
func TestDisplayEscapesStrings(t *testing.T) {
	const bad = `<b>x</b>&"'`
	target := Target{Levels: []float64{0.5}, Tolerance: 0.05, Alpha: 0.05}
	final := &Decision{Target: target, N: 100, Verdict: Verdict(bad), Reason: bad,
		Checks: []LevelCheck{{Level: 0.5, Coverage: 0.5, Count: 50, N: 100, Lower: 0.4, Upper: 0.6, Status: LevelStatus(bad)}}}
	cert := &Certificate{Target: target, Chosen: bad, Final: final,
		Steps:        []Step{{Name: bad, Note: bad, Decision: final}},
		Observations: []ObservationCheck{{Verdict: Verdict(bad), Claim: Claim(bad), Reason: bad, Misspec: &diag.MisspecResult{PValue: 0.5, Alpha: 0.05}}},
		Notes:        []string{bad}, Versions: bad}
	h := cert.MIMEBundle()["text/html"].(string)
	if strings.Contains(h, "<b>x</b>") || strings.Contains(h, `&"`) {
		t.Errorf("a string of the certificate is markup in its display:\n%s", h)
	}
}

// The observations table shows each misspecification and local test's p beside its level on
// the side it is: a p just above α must not read as equal to it, nor one just below as above.
func TestDisplayShowsPValueOnItsSide(t *testing.T) {
	target := Target{Levels: []float64{0.5}, Tolerance: 0.05, Alpha: 0.05}
	final := &Decision{Target: target, N: 100, Verdict: Certified,
		Checks: []LevelCheck{{Level: 0.5, Coverage: 0.5, Count: 50, N: 100, Lower: 0.4, Upper: 0.6}}}
	for _, c := range []struct {
		p, alpha float64
		want     string
	}{
		{0.05004, 0.05, "p = 0.05004 (α = 0.05)"},
		{0.0127, 0.0125, "p = 0.0127 (α = 0.0125)"},
		{0.3, 0.05, "p = 0.3 (α = 0.05)"},
	} {
		cert := &Certificate{Target: target, Final: final,
			Observations: []ObservationCheck{{Verdict: Certified, Misspec: &diag.MisspecResult{PValue: c.p, Alpha: c.alpha},
				Local: &diag.LC2STResult{Statistic: "MSE", PValue: c.p, Alpha: c.alpha, Null: make([]float64, 99)}}}}
		h := cert.MIMEBundle()["text/html"].(string)
		if !strings.Contains(h, c.want) {
			t.Errorf("p %v at α %v: the table does not show %q:\n%s", c.p, c.alpha, c.want, h)
		}
		local := strings.ReplaceAll(strings.ReplaceAll(c.want, "(α = ", "at level "), ")", "")
		if !strings.Contains(h, local) {
			t.Errorf("p %v at α %v: the local test's cell does not show %q:\n%s", c.p, c.alpha, local, h)
		}
	}
}
