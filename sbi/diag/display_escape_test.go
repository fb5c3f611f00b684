package diag

import (
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The names a caller gives a result (labels, parameter names, an estimator method, a
// statistic) are text in its HTML display, not markup.
func TestDisplayEscapesNames(t *testing.T) {
	const bad = `<b>x</b>&"'`
	levels := []float64{0.5, 0.9}
	cov := MustCoverageFromRanks([]float64{0.1, 0.3, 0.5, 0.7, 0.9, 0.2, 0.4, 0.6, 0.8, 0.95}, levels)
	cov.Label, cov.Method = bad, CoverageMethod(bad)
	cases := map[string]interface{ MIMEBundle() map[string]any }{
		"coverage":         cov,
		"coverage by hand": &CoverageResult{Label: bad, Method: CoverageMethod(bad)},
		"L-C2ST":           &LC2STResult{Statistic: LC2STStatistic(bad), Null: []float64{0.1, 0.2}, PValue: 0.5, Alpha: 0.05},
		"predictive":       &PredictiveResult{Label: bad, Names: []string{bad}, Observation: []float64{1}, Sims: mat.NewDense(2, 1, []float64{0, 2}), Quantile: []float64{0.5}, PValues: []float64{1}, Alpha: 0.05},
		"kernel test":      &KernelTestResult{Name: bad, Level: 0.05},
	}
	for name, r := range cases {
		h, _ := r.MIMEBundle()["text/html"].(string)
		if strings.Contains(h, "<b>x</b>") || strings.Contains(h, `&"`) {
			t.Errorf("%s: a name is markup in the display:\n%s", name, h)
		}
	}
}
