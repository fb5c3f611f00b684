package diag

import (
	"math"
	"strings"
	"testing"
)

// TestMarginalCoverageMarks: the HTML table of marginal coverage marks as evidence (bold) only
// cells outside the band simultaneous over all parameters and levels, and says what its colours
// mean. On the exact posterior of the conjugate Gaussian model (3 parameters, 19 levels, 200
// pairs of 99 draws), 200 repetitions: a cell left the pointwise band in 0.650 of them, with no
// word on what the colour meant; a bold cell appears in at most α + 3 SE = 0.096 of them
// (measured 0.035). Power: a posterior 0.8 times as wide is marked bold in at least 0.9 of 50
// repetitions (measured 1.00).
func TestMarginalCoverageMarks(t *testing.T) {
	const n = 200
	marked := func(m gaussModel, reps int) float64 {
		bold := 0
		for r := range reps {
			theta, x := m.simulate(uint64(300+r), n)
			res, err := MarginalCoverage(m, theta, x, RankConfig{Samples: 99, Seed: uint64(r), Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			h := res.MIMEBundle()["text/html"].(string)
			if !strings.Contains(h, "pointwise 95% band of one cell") || !strings.Contains(h, "bold: outside the simultaneous 95% band over all 57 cells") {
				t.Fatalf("the table does not say what its colours mean: %s", h)
			}
			if strings.Contains(h, "font-weight:bold") {
				bold++
			}
		}
		return float64(bold) / float64(reps)
	}
	const alpha, reps = 0.05, 200
	level := marked(gaussModel{dim: 3, tau: 2, s: 1, width: 1}, reps)
	power := marked(gaussModel{dim: 3, tau: 2, s: 1, width: 0.8}, 50)
	t.Logf("bold cells: exact posterior %.3f, over-confident %.3f", level, power)
	if bound := alpha + 3*math.Sqrt(alpha*(1-alpha)/reps); level > bound {
		t.Errorf("the exact posterior's table marks a bold cell in %.3f of %d repetitions, want at most %.3f", level, reps, bound)
	}
	if power < 0.9 {
		t.Errorf("an over-confident posterior's table marks a bold cell in %.3f of 50 repetitions, want at least 0.9", power)
	}
}
