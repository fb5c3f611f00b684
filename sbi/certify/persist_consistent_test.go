package certify

import (
	"math"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/diag"
)

// TestLoadRefusesContradictions: Load checked that verdicts and statuses were known values,
// not that they followed from the numbers beside them, so a file edited (or damaged) to say
// "certified" over counts that certify nothing loaded and showed a certificate the test never
// gave. Load now recomputes every decision from its counts and the target (statuses, intervals,
// coverage, verdict), checks the final coverage against the final decision, and refuses an
// observation certified without the evidence behind it; the reasons shown are those of the
// counts.
func TestLoadRefusesContradictions(t *testing.T) {
	within := func(f map[string]any) {
		d := f["final"].(map[string]any)
		d["Reason"] = "at every level {0.5, 0.8, 0.9, 0.95} the 90% interval of the coverage on 500 test pairs lies within the target"
	}
	checkEdits(t, []fileEdit{ // an edit without words loads, with the reason of the counts
		{"final verdict", func(f map[string]any) { f["final"].(map[string]any)["Verdict"] = "certified" },
			[]string{"final", `"certified"`, `"inconclusive"`}},
		{"final level status", func(f map[string]any) { check(f["final"], 0)["Status"] = "within" },
			[]string{"final.Checks[0]", `"within"`, `"undecided"`}},
		{"final count", func(f map[string]any) { check(f["final"], 0)["Count"] = 250.0 },
			[]string{"final.Checks[0]", "250"}},
		{"final interval", func(f map[string]any) { check(f["final"], 1)["Lower"] = 0.79 },
			[]string{"final.Checks[1]", "interval"}},
		{"final level", func(f map[string]any) { check(f["final"], 3)["Level"] = 0.9 },
			[]string{"final.Checks[3]", "level"}},
		{"final test size", func(f map[string]any) { f["final"].(map[string]any)["N"] = 5000.0 },
			[]string{"final", "5000"}},
		{"final coverage", func(f map[string]any) {
			f["after"].(map[string]any)["Coverage"].([]any)[2] = 0.9
		}, []string{"after", "0.9", "final.Checks[2]"}},
		{"step verdict", func(f map[string]any) {
			d := f["steps"].([]any)[0].(map[string]any)["Decision"].(map[string]any)
			d["Verdict"] = "certified"
			for k := range 4 {
				check(d, k)["Status"] = "within"
			}
		}, []string{"steps[0].Decision"}},
		{"observation certified", func(f map[string]any) {
			f["observations"].([]any)[0].(map[string]any)["Verdict"] = "certified"
		}, []string{"observations[0]", "certified", "final verdict is inconclusive"}},
		{"reason", within, nil},
	}, func(t *testing.T, name string, c *Certificate) {
		if s := c.Sentence(); !strings.HasPrefix(s, "Inconclusive: band too wide for the budget") {
			t.Errorf("%s: loaded, showing %q", name, s)
		}
	})
}

// TestLoadRefusesUnbackedObservation: an observation certified under a certified final verdict
// needs a misspecification check that can reject and admitted it (a NaN p-value admits
// nothing), and no local test that rejects; a score-calibrated one needs its own test
// certified. Load refused none of these before.
func TestLoadRefusesUnbackedObservation(t *testing.T) {
	certified := &Decision{Verdict: Certified}
	admits := &diag.MisspecResult{PValue: 0.5, Alpha: 0.05, Calibration: 100}
	rejects := &diag.LC2STResult{PValue: 0.01, Alpha: 0.05}
	for _, c := range []struct {
		name  string
		final Verdict
		o     ObservationCheck
		want  string // in the error; "" for none
	}{
		{"backed", Certified, ObservationCheck{Verdict: Certified, Misspec: admits}, ""},
		{"not certified needs nothing", Inconclusive, ObservationCheck{Verdict: NotCertified}, ""},
		{"global verdict inconclusive", Inconclusive, ObservationCheck{Verdict: Certified, Misspec: admits}, "final verdict is inconclusive"},
		{"no misspecification check", Certified, ObservationCheck{Verdict: Certified}, "misspecification"},
		{"misspecification rejects", Certified, ObservationCheck{Verdict: Certified,
			Misspec: &diag.MisspecResult{PValue: 0.01, Alpha: 0.05, Calibration: 100}}, "misspecification"},
		{"misspecification NaN", Certified, ObservationCheck{Verdict: Certified,
			Misspec: &diag.MisspecResult{PValue: math.NaN(), Alpha: 0.05, Calibration: 100}}, "misspecification"},
		{"misspecification cannot reject", Certified, ObservationCheck{Verdict: Certified,
			Misspec: &diag.MisspecResult{PValue: 0.5, Alpha: 0.05, Calibration: 10}}, "misspecification"},
		{"local test rejects", Certified, ObservationCheck{Verdict: Certified, Misspec: admits, Local: rejects}, "local test rejects"},
		{"score calibration certified", Inconclusive, ObservationCheck{Verdict: Certified, Claim: ClaimLocal,
			ScoreCal: &ScoreCalibrated{Decision: certified}}, ""},
		{"score calibration not certified", Certified, ObservationCheck{Verdict: Certified, Claim: ClaimLocal, Misspec: admits,
			ScoreCal: &ScoreCalibrated{Decision: &Decision{Verdict: NotCertified}}}, "score calibration is not certified"},
		{"score calibration rejected locally", Inconclusive, ObservationCheck{Verdict: Certified, Claim: ClaimLocal,
			ScoreCal: &ScoreCalibrated{Decision: certified, Local: rejects}}, "local test rejects"},
	} {
		f := &file{Final: &Decision{Verdict: c.final}}
		err := f.backed("observations[0]", &c.o)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
}
