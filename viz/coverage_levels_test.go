package viz

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/diag"
)

// TestCoverageLevelsRefused: a coverage result whose credibility levels are not in [0, 1]
// (NaN, or percentages) cannot be drawn on the figure's unit axes: Coverage and
// MarginalCoverage make a plot whose rendering says so. Before, a NaN level left the curve out
// of the figure without a word (its verdict still counted it), and a level of 95 panicked in
// the band's binomial quantile on the caller's goroutine.
func TestCoverageLevelsRefused(t *testing.T) {
	levels := func(l ...float64) *diag.CoverageResult {
		return &diag.CoverageResult{Label: "npe", N: 100, Levels: l, Coverage: []float64{0.1, 0.5, 0.9}}
	}
	marginal := func(l ...float64) *diag.MarginalResult {
		return &diag.MarginalResult{N: 100, Levels: l, Coverage: [][]float64{{0.1, 0.5, 0.9}}}
	}
	for _, c := range []struct {
		name string
		plot func() *Plot
		want string
	}{
		{"NaN level", func() *Plot { return Coverage(levels(0.1, math.NaN(), 0.9)) },
			`viz: Coverage: result 0 ("npe") cannot be drawn: its level 2 is NaN, expected a credibility level in [0, 1]`},
		{"percent levels", func() *Plot { return Coverage(levels(10, 50, 95)) },
			`viz: Coverage: result 0 ("npe") cannot be drawn: its level 1 is 10, expected a credibility level in [0, 1]`},
		{"negative level, second result", func() *Plot { return Coverage(levels(0.1, 0.5, 0.9), levels(-0.1, 0.5, 0.9)) },
			`viz: Coverage: result 1 ("npe") cannot be drawn: its level 1 is -0.1`},
		{"marginal NaN level", func() *Plot { return MarginalCoverage(marginal(0.1, 0.5, math.NaN())) },
			"viz: MarginalCoverage: the result cannot be drawn: parameter 1: its level 3 is NaN"},
	} {
		noPanic(t, c.name, func() {
			p := c.plot()
			if _, err := p.PNG(); err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("%s: PNG error %v, want one starting %q", c.name, err, c.want)
			}
		})
	}
}

// TestCoverageBandOfFirstResult: the band Coverage draws is that of the first result given;
// a nil result before it (skipped) left the figure without a band, while its rings and legend
// still spoke of levels 'outside the simultaneous band'.
func TestCoverageBandOfFirstResult(t *testing.T) {
	r := &diag.CoverageResult{Label: "npe", N: 100, Levels: []float64{0.1, 0.5, 0.9}, Coverage: []float64{0, 0.5, 0.9}}
	want := Coverage(r).Legend()
	if !slices.Contains(want, flaggedName) || !strings.HasPrefix(want[0], "simultaneous 95% band") {
		t.Fatalf("legend of the result alone %q, want its band and its ringed level", want)
	}
	got := Coverage(nil, r).Legend()
	for _, e := range want[:2] { // the two bands
		if !slices.Contains(got, e) {
			t.Errorf("legend after a nil result %q, want the entry %q", got, e)
		}
	}
}
