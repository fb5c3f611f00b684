package diag

import (
	"math"
	"strings"
	"testing"
)

// TestCoverageLevelOutsideUnitInterval: a result built by hand with a level outside [0, 1]
// (95 for 0.95) or NaN cannot be judged: Verdict says inconclusive and names the level, and
// neither it nor Flagged panics in the band computation.
func TestCoverageLevelOutsideUnitInterval(t *testing.T) {
	for _, level := range []float64{95, -0.1, math.NaN()} {
		r := &CoverageResult{N: 100, Levels: []float64{0.5, level}, Coverage: []float64{0.5, 0.9}}
		var v string
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("level %v: Verdict panics: %v", level, p)
				}
			}()
			v = r.Verdict()
			r.Flagged()
		}()
		if !strings.HasPrefix(v, "inconclusive") || !strings.Contains(v, "level 2") {
			t.Errorf("level %v: verdict %q, want inconclusive naming level 2", level, v)
		}
	}
}
