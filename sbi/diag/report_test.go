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
