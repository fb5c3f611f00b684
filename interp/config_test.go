package interp

import "testing"

// TestConfigEnumsInCells checks that a cell may set the enumerations of the library's
// configs with the named constants or with untyped string literals, and that the two agree;
// NPEConfig.Flow has the type flow.Kind of a package that has no symbol table of its own.
func TestConfigEnumsInCells(t *testing.T) {
	ts := newTestSession(t)
	for _, c := range []struct{ cell, want string }{
		{`sbi.NPEConfig{Flow: sbi.NSF, Activation: sbi.ReLU} == sbi.NPEConfig{Flow: "nsf", Activation: "relu"}`, "true"},
		{`sbi.NREConfig{Activation: sbi.SELU}.Activation == "selu"`, "true"},
		{`string(sbi.SamplerConfig{Method: sbi.SamplerImportance}.Method)`, `"importance"`},
		{`string(sbi.NPEConfig{Flow: sbi.MAF}.Flow)`, `"maf"`},
		{`viz.SweepConfig{YLabel: "AUC"}.YLabel`, `"AUC"`},
		{`task.ODEConfig{MaxSteps: 7}.MaxSteps`, "7"},
	} {
		if got := ts.mustRun(t, c.cell).Data["text/plain"]; got != c.want {
			t.Errorf("%s = %v, want %s", c.cell, got, c.want)
		}
	}
}
