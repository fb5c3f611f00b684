package viz

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// TestBudgetSweepNonFinite: a reference line or a budget that is not finite is an error
// naming it (a NaN reference was a nil-pointer panic, an infinite budget gonum's 'infinite
// data point'), and runs whose value is NaN or ±Inf, which the median and the band leave out,
// are counted in the series' legend entry instead of being dropped without a word.
func TestBudgetSweepNonFinite(t *testing.T) {
	ok := SweepSeries{Label: "npe", Budgets: []float64{100, 1000}, Values: [][]float64{{0.1, 0.2}, {0.05}}}
	for _, c := range []struct {
		name   string
		cfg    SweepConfig
		series SweepSeries
		want   string
	}{
		{"NaN reference", SweepConfig{Reference: []float64{0, math.NaN()}}, ok, "Reference[1] = NaN"},
		{"infinite reference", SweepConfig{Reference: []float64{math.Inf(-1)}}, ok, "Reference[0] = -Inf"},
		{"infinite budget", SweepConfig{}, SweepSeries{Label: "npe", Budgets: []float64{100, math.Inf(1)}, Values: [][]float64{{1}, {2}}},
			`series "npe" has budget +Inf`},
	} {
		noPanic(t, c.name, func() {
			_, err := BudgetSweep(c.cfg, c.series)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
			}
		})
	}
	for _, c := range []struct {
		name   string
		values [][]float64
		entry  string
	}{
		{"all finite", [][]float64{{0.1, 0.2}, {0.05}}, "npe"},
		{"one NaN", [][]float64{{0.1, math.NaN(), 0.2}, {0.05}}, "npe (1 non-finite run left out)"},
		{"NaN and Inf", [][]float64{{0.1, math.NaN()}, {math.Inf(1), 0.05}}, "npe (2 non-finite runs left out)"},
	} {
		p, err := BudgetSweep(SweepConfig{}, SweepSeries{Label: "npe", Budgets: []float64{100, 1000}, Values: c.values})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !slices.Contains(p.Legend(), c.entry) {
			t.Errorf("%s: legend %q, want the entry %q", c.name, p.Legend(), c.entry)
		}
	}
}
