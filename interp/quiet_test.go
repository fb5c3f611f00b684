package interp

import (
	"strings"
	"testing"

	"github.com/gosbi/gosbi/display"
)

// TestAutoImportIsQuiet: a cell using packages it does not import writes nothing on stderr,
// which Jupyter front ends paint as a warning box, and %who lists the packages imported.
func TestAutoImportIsQuiet(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "m := mat.NewDense(1, 1, []float64{2})\ns := strings.Repeat(\"a\", int(mat.Det(m)))\nfmt.Sprint(s, math.Pi)")
	ts.mustRun(t, "strings.ToUpper(\"again\")")
	if e := ts.errOut.String(); e != "" {
		t.Errorf("cells with auto-imports wrote %q on stderr", e)
	}
	ts.out.Reset()
	ts.mustRun(t, "%who")
	if !strings.Contains(ts.out.String(), "auto-imports: fmt, gonum.org/v1/gonum/mat, math, strings") {
		t.Errorf("%%who = %q, expected the auto-imports listed", ts.out.String())
	}
}

// TestPrintResultEndsLines: the REPL ends a pager text (?NAME) with a newline, so that the
// next prompt starts on its own line.
func TestPrintResultEndsLines(t *testing.T) {
	var out, errOut strings.Builder
	printResult(Result{Page: map[string]any{display.MIMEText: "func Split(s, sep string) []string\n\nSplit slices s."}}, &out, &errOut)
	if !strings.HasSuffix(out.String(), "Split slices s.\n") {
		t.Errorf("page printed as %q", out.String())
	}
	out.Reset()
	printResult(Result{Page: map[string]any{display.MIMEText: "ends with a newline\n"}}, &out, &errOut)
	if out.String() != "ends with a newline\n" {
		t.Errorf("page printed as %q", out.String())
	}
}

// TestSimulationShownRich: a cell ending in an sbi.Simulation shows its summary and a few rows,
// not a dump of its matrices (20 KB for 1000 rows).
func TestSimulationShownRich(t *testing.T) {
	ts := newTestSession(t)
	res := ts.mustRun(t, "rng := rand.New(rand.NewPCG(1, 2))\ntheta := mat.NewDense(1000, 2, nil)\n"+
		"sim, err := sbi.Simulate(rng, func(r *rand.Rand, th []float64) []float64 { return []float64{th[0] + r.NormFloat64(), 1, 2} }, theta)\n"+
		"if err != nil {\n\tpanic(err)\n}\nsim")
	htm, _ := res.Data["text/html"].(string)
	txt, _ := res.Data["text/plain"].(string)
	if !strings.Contains(htm, "1000 of 1000 rows kept") || !strings.Contains(htm, "<table>") || !strings.Contains(txt, "X 1000×3") {
		t.Errorf("display of a Simulation: html %q, text %q", htm, txt)
	}
	if len(htm)+len(txt) > 3000 {
		t.Errorf("display of a Simulation is %d bytes", len(htm)+len(txt))
	}
}
