package viz

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/diag"
)

// TestCoverageBandsAsDiag: the bands Coverage draws, and the confidences their legend states,
// are those diag.CoverageResult's table and verdict use, also for a result built by hand
// without bands or confidences; a result whose curve cannot be drawn is refused with a message
// naming it instead of an index panic.
func TestCoverageBandsAsDiag(t *testing.T) {
	full, err := diag.CoverageFromRanks(ranks(1, 200, 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	hand := func(edit func(r *diag.CoverageResult)) *diag.CoverageResult {
		r := *full
		edit(&r)
		return &r
	}
	wantLo, wantHi := diag.BinomialBand(full.N, full.Levels, diag.DefaultConfidence)
	for _, c := range []struct {
		name string
		r    *diag.CoverageResult
	}{
		{"no confidence", hand(func(r *diag.CoverageResult) { r.Confidence = 0 })},
		{"no pointwise band", hand(func(r *diag.CoverageResult) { r.Lower, r.Upper, r.Confidence = nil, nil, 0 })},
	} {
		var lay coverageData
		noPanic(t, c.name, func() { lay = coverageLayers([]*diag.CoverageResult{c.r}) })
		if want := bandPolygon(full.Levels, wantLo, wantHi); !slices.Equal(lay.point, want) {
			t.Errorf("%s: dark band %v, want the pointwise 95%% band %v", c.name, lay.point, want)
		}
		if want := "pointwise 95% band, each level"; lay.pointName != want {
			t.Errorf("%s: dark band labelled %q, want %q", c.name, lay.pointName, want)
		}
	}
	for _, c := range []struct {
		name    string
		results []*diag.CoverageResult
		want    string
	}{
		{"short coverage", []*diag.CoverageResult{full, hand(func(r *diag.CoverageResult) { r.Coverage = r.Coverage[:3] })},
			"result 1 (\"\") cannot be drawn: it holds 3 coverage values for 19 levels"},
		{"no pairs", []*diag.CoverageResult{hand(func(r *diag.CoverageResult) { r.N = 0 })}, "result 0 (\"\") cannot be drawn: it holds N = 0 test pairs"},
		{"NaN coverage", []*diag.CoverageResult{full, hand(func(r *diag.CoverageResult) { r.Coverage = slices.Clone(r.Coverage); r.Coverage[2] = math.NaN() })},
			"result 1 (\"\") cannot be drawn: its coverage at level 0.15 is NaN"},
	} {
		noPanic(t, c.name, func() {
			p := Coverage(c.results...)
			if _, err := p.PNG(); err == nil || !strings.HasPrefix(err.Error(), "viz: Coverage: ") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: PNG error %v, want one containing %q", c.name, err, c.want)
			}
			if got := p.Legend(); len(got) != 0 {
				t.Errorf("%s: legend %q of a figure that draws nothing", c.name, got)
			}
		})
	}
}
