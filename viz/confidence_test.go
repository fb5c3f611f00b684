package viz

import (
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/diag"
)

// TestLegendsNameConfidence: the legends of Coverage, SBCECDF, LC2ST and Density2D name a
// band's confidence or a contour's mass as it was asked for, a 99.9% band not as "100%".
func TestLegendsNameConfidence(t *testing.T) {
	for _, c := range []struct {
		conf float64
		want string
	}{
		{0.95, "95%"},
		{0.9, "90%"},
		{0.995, "99.5%"},
		{0.999, "99.9%"},
		{0.9999, "99.99%"},
	} {
		levels := diag.Levels(19)
		cov := &diag.CoverageResult{Levels: levels, N: 1000, Coverage: levels, Confidence: c.conf, SimConfidence: c.conf}
		cov.Lower, cov.Upper = diag.BinomialBand(cov.N, levels, c.conf)
		cov.SimLower, cov.SimUpper = diag.SimultaneousBand(cov.N, levels, c.conf)
		lay := coverageLayers([]*diag.CoverageResult{cov})
		lc := lc2stLayers(&diag.LC2STResult{Alpha: 1 - c.conf})
		for _, s := range []struct{ where, got, want string }{
			{"Coverage", lay.simName, "simultaneous " + c.want + " band"},
			{"Coverage", lay.pointName, "pointwise " + c.want + " band"},
			{"SBCECDF", ecdfLegend(&diag.ECDFResult{Confidence: c.conf, N: 100})[0], "simultaneous " + c.want + " band"},
			{"LC2ST", lc.names[0], "null band (" + c.want + ","},
			{"Density2D", massList([]float64{0.5, c.conf}), "50%, " + c.want},
		} {
			if !strings.Contains(s.got, s.want) {
				t.Errorf("confidence %v: %s legend %q, want it to name %q", c.conf, s.where, s.got, s.want)
			}
		}
	}
}
