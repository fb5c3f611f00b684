package interp

import (
	"strings"
	"testing"

	"github.com/gosbi/gosbi/interp/rewrite"
)

// TestMethodValueInTupleAssignment assigns method values of a compiled type (*dist.Normal)
// among the values of multi-value assignments, at the top of a cell and in function bodies,
// and checks what the assigned functions compute: log N(0; 0, 1) = −log √(2π) = −0.918939.
func TestMethodValueInTupleAssignment(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "import (\n\t\"math\"\n\t\"github.com/gosbi/gosbi/sbi/calib\"\n\t\"github.com/gosbi/gosbi/sbi/dist\"\n\t\"gonum.org/v1/gonum/mat\"\n)\n"+
		"d := dist.NewNormal([]float64{0}, []float64{1})\nm := mat.NewDense(1, 1, nil)\ncfg := calib.ScoreCalConfig{}")
	for _, c := range []struct{ name, code, result string }{
		{"field of a compiled struct", "cfg.ImportanceWeights, cfg.LogApprox = true, d.LogProb\ncfg.LogApprox(m)[0]", "-0.91893853320467"},
		{"in parentheses", "cfg.Clip, cfg.LogPrior = 0.5, (d.LogProb)\ncfg.LogPrior(m)[0]", "-0.91893853320467"},
		{"variable and blank", "var f func(*mat.Dense) []float64\nf, _ = d.LogProb, 1\nf(m)[0]", "-0.91893853320467"},
		{"function body, nested blocks", "func logs() []float64 {\n\tc := calib.ScoreCalConfig{}\n\tfor _, clip := range []float64{0, 1} {\n" +
			"\t\tif clip < 1 {\n\t\t\tswitch {\n\t\t\tdefault:\n\t\t\t\tc.Clip, c.LogApprox = clip, d.LogProb\n\t\t\t}\n\t\t}\n\t}\n" +
			"\treturn c.LogApprox(m)\n}\nlogs()[0]", "-0.91893853320467"},
		{"function literal", "g := func() float64 {\n\tvar h func(*mat.Dense) []float64\n\tvar n int\n\th, n = d.LogProb, 2\n\treturn h(m)[0] * float64(n)\n}\ng()", "-1.83787706640934"},
		// a package's constant keeps its untyped constant value (here converted to float32)
		{"package constant", "var x32 float32\nvar k int\nx32, k = math.Pi, 7\nx32", "3.1415927"},
		// the values are all read before anything is assigned
		{"swap of fields", "type pair struct{ A, B string }\npr := pair{\"a\", \"b\"}\npr.A, pr.B = pr.B, pr.A\npr.A + pr.B", `"ba"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			// the digits of the results that do not depend on rounding
			if got := text(ts.mustRun(t, c.code)); !strings.HasPrefix(got, c.result) {
				t.Errorf("%s: got %s, want %s", c.name, got, c.result)
			}
		})
	}
}

// TestMethodValueRewriteKeepsPositions checks that errors in and after a rewritten assignment
// point at the cell's own lines and columns.
func TestMethodValueRewriteKeepsPositions(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "import \"github.com/gosbi/gosbi/sbi/dist\"\nd := dist.NewNormal([]float64{0}, []float64{1})\nvar f func(x int) int\nvar g func() int\nvar n int")
	for _, c := range []struct{ code, want string }{
		{"n = 1\nf, n = d.LogProb, 2", "line 2:8: cannot use type func(*mat.Dense) []float64 as type func(int) int"},
		{"n = 1\nf, n = d.Mean, nope", "line 2:16: undefined: nope"},
		{"f = nil\nn, f = 1, d.Nope", "line 2:13: d.Nope undefined (type *dist.Normal has no field or method Nope)"},
		{"n, g = 1, d.Dim\nnope2", "line 2:1: undefined: nope2"},
	} {
		res := ts.run(c.code)
		if res.Err == nil {
			t.Errorf("%q: no error", c.code)
			continue
		}
		if !strings.Contains(res.Err.Value, c.want) || strings.Contains(res.Err.Value, rewrite.HoistPrefix) {
			t.Errorf("%q: error %q, want it to contain %q", c.code, res.Err.Value, c.want)
		}
	}
}
