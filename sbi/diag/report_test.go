package diag

import (
	"math"
	"strings"
	"testing"
)

func TestNewReport(t *testing.T) {
	m := boxModel{dim: 2, lo: -3, hi: 3, s: 0.6, width: 1}
	theta, x := m.simulate(21, 600)
	rep, err := NewReport(m, theta, x, ReportConfig{Label: "exact", Samples: 199, Seed: 4, Prior: m,
		Lower: []float64{-3, -3}, Upper: []float64{3, 3}})
	if err != nil {
		t.Fatal(err)
	}
	// The report's coverage uses the same random streams as RankCoverage: identical ranks.
	rank, err := RankCoverage(m, theta, x, RankConfig{Samples: 199, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	for i := range rank.Ranks {
		if rank.Ranks[i] != rep.Coverage.Ranks[i] {
			t.Fatalf("pair %d: report rank %v, RankCoverage %v", i, rep.Coverage.Ranks[i], rank.Ranks[i])
		}
	}
	if rep.Grid == nil || rep.Grid.N != 600 {
		t.Fatal("report without the grid estimator although a box was given")
	}
	assertInBand(t, "report grid", rep.Grid)
	if rep.SBC == nil || rep.TARP == nil || rep.Marginal == nil || rep.LogProb == nil {
		t.Fatal("report lacks a diagnostic")
	}
	if want := -2 * math.Log(6); math.Abs(rep.LogProb.Prior-want) > 1e-12 {
		t.Errorf("prior log density %v, want %v", rep.LogProb.Prior, want)
	}
	b := rep.MIMEBundle()
	h, _ := b["text/html"].(string)
	for _, want := range []string{"Calibration report", "exact", "HPD coverage (rank)", "HPD coverage (grid)", "SBC", "TARP", "prior"} {
		if !strings.Contains(h, want) {
			t.Errorf("report HTML lacks %q", want)
		}
	}
}

// TestReportFigures checks that a report's display never drops its plots silently: shown
// alone (this test does not link package viz) it names viz.Report, which draws them; shown
// with figures it has one image per figure, and a figure that could not be drawn says why.
func TestReportFigures(t *testing.T) {
	m := boxModel{dim: 1, lo: -3, hi: 3, s: 0.6, width: 1}
	theta, x := m.simulate(5, 100)
	rep, err := NewReport(m, theta, x, ReportConfig{Label: "exact", Samples: 49, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	png := []byte("\x89PNG\r\n\x1a\n")
	tests := []struct {
		name      string
		bundle    map[string]any
		images    int
		html      []string // substrings the HTML must hold
		text      []string // substrings the text must hold
		notInHTML string
	}{
		{"alone", rep.MIMEBundle(), 0,
			[]string{"Calibration report", "viz.Report(report)"}, []string{"viz.Report(report)"}, "<img"},
		{"with figures", ReportWithFigures{Report: rep, Figures: []Figure{
			{Title: "expected coverage", PNG: png}, {Title: "TARP", PNG: png},
			{Title: "SBC ranks: cannot draw the plot: no ranks"}}}.MIMEBundle(), 2,
			[]string{"Calibration report", `title="expected coverage"`, `title="TARP"`, "SBC ranks: cannot draw the plot: no ranks"},
			[]string{"expected coverage; TARP; SBC ranks: cannot draw"}, "viz.Report"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := tc.bundle["text/html"].(string)
			txt, _ := tc.bundle["text/plain"].(string)
			if n := strings.Count(h, "<img "); n != tc.images {
				t.Errorf("HTML has %d images, want %d", n, tc.images)
			}
			for _, want := range tc.html {
				if !strings.Contains(h, want) {
					t.Errorf("HTML lacks %q", want)
				}
			}
			for _, want := range tc.text {
				if !strings.Contains(txt, want) {
					t.Errorf("text lacks %q:\n%s", want, txt)
				}
			}
			if strings.Contains(h, tc.notInHTML) {
				t.Errorf("HTML holds %q", tc.notInHTML)
			}
		})
	}
}
