package interp

import (
	"strings"
	"testing"
)

// TestHelpPythonSBINames checks that ?NAME of a name of Python's sbi that gosbi does not
// define (pairplot, simulate_for_sbi, run_sbc, …) names gosbi's counterpart in the pager, with
// the cell's status ok, that the inspection of the same name (Shift-Tab) says the same, and
// that every counterpart named has documentation.
func TestHelpPythonSBINames(t *testing.T) {
	ts := newTestSession(t)
	for _, c := range []struct{ ask, want string }{
		{"?pairplot", "Python sbi's pairplot is viz.Corner here (?viz.Corner)"},
		{"?viz.pairplot", "Python sbi's pairplot is viz.Corner here"},
		{"simulate_for_sbi?", "Python sbi's simulate_for_sbi is sbi.Simulate here"},
		{"?run_sbc", "Python sbi's run_sbc is diag.SBC here"},
		{"?check_tarp", "Python sbi's check_tarp is diag.TARP here"},
		{"%help pairplot", "Python sbi's pairplot is viz.Corner here"},
		// the class names of sbi's estimators, as a newcomer types them
		{"?NPE_C", "Python sbi's npe_c is sbi.NewNPE here"},
		{"?SNPE_C", "Python sbi's snpe_c is sbi.Sequential here"},
		{"?NLE_A", "Python sbi's nle_a is sbi.NewNLE here"},
		{"?NRE_B", "Python sbi's nre_b is sbi.NewNRE here (?sbi.NewNRE); sbi.NREConfig{Loss: sbi.NREB}"},
		{"?BNRE", "Python sbi's bnre is calib.NewBalanceRegularizer here"},
	} {
		res := ts.run(c.ask)
		if res.Err != nil {
			t.Errorf("%s: the cell failed: %s", c.ask, res.Err.Value)
			continue
		}
		page, _ := res.Page["text/plain"].(string)
		if !strings.Contains(page, c.want) || !strings.Contains(page, "not defined") {
			t.Errorf("%s: page %q, want it to say the name is not defined and contain %q", c.ask, page, c.want)
		}
		name := strings.TrimPrefix(strings.Trim(c.ask, "?"), "%help ")
		text, found := ts.Inspect(name, len(name))
		if !found || text != page {
			t.Errorf("inspection of %s: %q (found %v), want what ?%s pages, %q", name, text, found, name, page)
		}
	}
	for py, e := range pythonSBINames {
		if res := ts.run("?" + e[0]); res.Err != nil || res.Page == nil {
			t.Errorf("%s: its counterpart %s has no documentation: %+v", py, e[0], res)
		}
	}
}

// TestInspectMemberOfDeclaration checks that a member of the session's own variable whose name
// is one of Python's sbi (a field NPE of a cell's struct) is not answered as that name of
// Python's sbi, which gosbi would not define: it is the user's field.
func TestInspectMemberOfDeclaration(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "type result struct{ NPE, SNPE_C int }\nres := result{NPE: 1}\nvar rp = &res")
	for _, name := range []string{"res.NPE", "res.SNPE_C", "rp.NPE"} {
		if text, _ := ts.Inspect(name, len(name)); strings.Contains(text, "Python sbi") {
			t.Errorf("inspection of %s: %q, want no page of Python's sbi for a field of the session's variable", name, text)
		}
		res := ts.run("?" + name)
		if page, _ := res.Page["text/plain"].(string); strings.Contains(page, "Python sbi") {
			t.Errorf("?%s: page %q, want no page of Python's sbi for a field of the session's variable", name, page)
		}
	}
}
