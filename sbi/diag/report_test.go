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

// TestReportAtObservation runs the report with an observation on the conjugate model
// θ ~ N(0, 2²), x = θ + N(0, 1): on an over-confident estimator (posterior SD halved) at a
// typical observation, and on the exact one at a contaminated observation (x_o = 25, 5 SD of
// the simulations out). Its verdict says what each number supports: over-confident over the
// pairs and rejected by L-C2ST at x_o in the first case; in the second, calibrated over the
// pairs but no claim at x_o, which lies outside the simulations, and L-C2ST not run.
func TestReportAtObservation(t *testing.T) {
	theta, x := gaussModel{dim: 1, tau: 2, s: 1}.simulate(31, 300)
	local := LC2STConfig{Null: 19, Evals: 300, Hidden: []int{16}, MaxEpochs: 40, LearningRate: 0.03, BatchSize: 600}
	cases := []struct {
		name    string
		m       gaussModel
		xo      float64
		want    []string // substrings of the verdict
		notWant []string
	}{
		{"over-confident", gaussModel{dim: 1, tau: 2, s: 1, width: 0.5}, 0.7,
			[]string{"over the test pairs, over-confident", "at the observation: consistent with the simulations", "rejected: the estimator's posterior at this observation differs"},
			[]string{"consistent with calibration", "no evidence"}},
		{"contaminated", gaussModel{dim: 1, tau: 2, s: 1, width: 1}, 25,
			[]string{"at the observation: atypical of the simulations", "says nothing about this observation", "L-C2ST was not run"},
			[]string{"no evidence", "rejected:"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, err := NewReport(c.m, theta, x, ReportConfig{Label: c.name, Samples: 199, Seed: 2, Observation: []float64{c.xo}, LC2ST: local})
			if err != nil {
				t.Fatal(err)
			}
			v := rep.Verdict()
			t.Log(v)
			for _, w := range c.want {
				if !strings.Contains(v, w) {
					t.Errorf("verdict lacks %q", w)
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(v, w) {
					t.Errorf("verdict claims %q", w)
				}
			}
			if (rep.Local == nil) != (c.name == "contaminated") || rep.Misspec == nil {
				t.Errorf("local diagnostics: L-C2ST %v, misspecification %v", rep.Local != nil, rep.Misspec != nil)
			}
			h, _ := rep.MIMEBundle()["text/html"].(string)
			for _, row := range []string{"misspecification at x_o", "L-C2ST at x_o", "verdict"} {
				if !strings.Contains(h, row) {
					t.Errorf("report table lacks the row %q", row)
				}
			}
		})
	}
}
