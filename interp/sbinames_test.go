package interp

import (
	"strings"
	"testing"
)

// TestHelpPythonSBINames checks that ?NAME of a name of Python's sbi that gosbi does not
// define (pairplot, simulate_for_sbi, run_sbc, …) names gosbi's counterpart instead of only
// "no documentation found", and that every counterpart named has documentation.
func TestHelpPythonSBINames(t *testing.T) {
	ts := newTestSession(t)
	for _, c := range []struct{ ask, want string }{
		{"?pairplot", "Python sbi's pairplot is viz.Corner here (?viz.Corner)"},
		{"?viz.pairplot", "Python sbi's pairplot is viz.Corner here"},
		{"simulate_for_sbi?", "Python sbi's simulate_for_sbi is sbi.Simulate here"},
		{"?run_sbc", "Python sbi's run_sbc is diag.SBC here"},
		{"?check_tarp", "Python sbi's check_tarp is diag.TARP here"},
		// the class names of sbi's estimators, as a newcomer types them
		{"?NPE_C", "Python sbi's npe_c is sbi.NewNPE here"},
		{"?SNPE_C", "Python sbi's snpe_c is sbi.Sequential here"},
		{"?NLE_A", "Python sbi's nle_a is sbi.NewNLE here"},
		{"?NRE_B", "Python sbi's nre_b is sbi.NewNRE here (?sbi.NewNRE); sbi.NREConfig{Loss: sbi.NREB}"},
		{"?BNRE", "Python sbi's bnre is calib.NewBalanceRegularizer here"},
		{"?nosuchname", ""},
	} {
		res := ts.run(c.ask)
		if res.Err == nil {
			t.Errorf("%s: no error, want no documentation found", c.ask)
			continue
		}
		msg := res.Err.Value
		if !strings.Contains(msg, "no documentation found") {
			t.Errorf("%s: %q, want no documentation found", c.ask, msg)
		}
		if c.want == "" && strings.Contains(msg, "Python sbi") {
			t.Errorf("%s: %q names a Python counterpart", c.ask, msg)
		}
		if c.want != "" && !strings.Contains(msg, c.want) {
			t.Errorf("%s: %q, want it to contain %q", c.ask, msg, c.want)
		}
	}
	for py, e := range pythonSBINames {
		if res := ts.run("?" + e[0]); res.Err != nil {
			t.Errorf("%s: its counterpart %s has no documentation: %s", py, e[0], res.Err.Value)
		}
	}
}
