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
