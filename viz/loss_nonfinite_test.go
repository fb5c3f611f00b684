package viz

import (
	"math"
	"slices"
	"testing"
)

// TestLossCurvesNonFinite: a loss that diverged to −Inf (or NaN) at some epochs is drawn
// without those epochs, and the best validation loss marked is the lowest one drawn, instead
// of a nil-pointer panic on a point at −Inf.
func TestLossCurvesNonFinite(t *testing.T) {
	train := []float64{1, 0.5, 0.4, 0.3}
	for _, c := range []struct {
		name string
		val  []float64
		best string
	}{
		{"-Inf", []float64{1.2, math.Inf(-1), 0.6, 0.7}, "best: 0.6 (epoch 3)"},
		{"NaN and +Inf", []float64{math.NaN(), math.Inf(1), 0.8, 0.7}, "best: 0.7 (epoch 4)"},
	} {
		noPanic(t, c.name, func() {
			p := LossCurves(train, c.val)
			if got := p.Legend(); !slices.Contains(got, c.best) {
				t.Errorf("%s: legend %q, want %q", c.name, got, c.best)
			}
			if _, err := p.PNG(); err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
		})
	}
}
