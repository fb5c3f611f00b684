package viz

import (
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/diag"
)

// TestLC2STTitleAsVerdict: the title of the L-C2ST plot says what the result's verdict says
// when too few null classifiers were trained to reach a p-value of Alpha: inconclusive, not
// "no evidence of a difference".
func TestLC2STTitleAsVerdict(t *testing.T) {
	null := []float64{0.01, 0.02, 0.015, 0.03, 0.012, 0.018, 0.022, 0.011, 0.025, 0.017}
	r := &diag.LC2STResult{Statistic: diag.LC2STMSE, Value: 0.05, Null: null, PValue: 1.0 / 11, Alpha: 0.05,
		N: 200, Evals: 100, Grid: []float64{0, 0.5, 1}, CDF: []float64{0, 0.4, 1},
		NullLower: []float64{0, 0.45, 1}, NullUpper: []float64{0, 0.55, 1}, ObservationPValue: 0.5}
	verdict := r.Verdict()
	if !strings.HasPrefix(verdict, "inconclusive") {
		t.Fatalf("verdict %q, want inconclusive (the test's premise)", verdict)
	}
	svg, err := LC2ST(r).SVG()
	if err != nil {
		t.Fatal(err)
	}
	if s := string(svg); !strings.Contains(s, "inconclusive") || strings.Contains(s, "no evidence") {
		t.Errorf("the plot's title does not say inconclusive, as the verdict %q does", verdict)
	}
}
