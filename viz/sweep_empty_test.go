package viz

import (
	"strings"
	"testing"
)

// TestBudgetSweepEmptySeries: a series without budgets (a study table with no rows, say) is an
// error, not a legend entry for a curve that is not drawn.
func TestBudgetSweepEmptySeries(t *testing.T) {
	ok := SweepSeries{Label: "NRE", Budgets: []float64{100, 1000}, Values: [][]float64{{0.1, 0.2}, {0.05}}}
	p, err := BudgetSweep(SweepConfig{}, ok, SweepSeries{Label: "BNRE"})
	if err == nil || !strings.Contains(err.Error(), `series "BNRE" has no budgets`) {
		var legend []string
		if p != nil {
			legend = p.Legend()
		}
		t.Errorf("BudgetSweep with an empty series: legend %q, error %v; want an error naming it", legend, err)
	}
}
