package viz

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestDensity2DBadConfig: a configuration Density2D cannot draw as asked is an error naming
// the field, not a panic, and a grid beyond MaxDensityPoints per axis is refused before it is
// allocated or the density evaluated.
func TestDensity2DBadConfig(t *testing.T) {
	box := func(c DensityConfig) DensityConfig {
		c.Lower, c.Upper = []float64{-3, -3}, []float64{3, 3}
		return c
	}
	for _, c := range []struct {
		name string
		cfg  DensityConfig
		want string
	}{
		{"huge grid", box(DensityConfig{Points: 1 << 24}), "Points = 16777216"},
		{"one true value", box(DensityConfig{Truth: []float64{0.4}}), "Truth has 1 value"},
		{"one name", box(DensityConfig{Names: []string{"a"}}), "Names has 1 value"},
		{"percent levels", box(DensityConfig{Levels: []float64{68, 95}}), "Levels[0] = 68"},
		{"negative level", box(DensityConfig{Levels: []float64{0.5, -0.1}}), "Levels[1] = -0.1"},
		{"NaN level", box(DensityConfig{Levels: []float64{0.5, math.NaN()}}), "Levels[1] = NaN"},
		{"infinite box", DensityConfig{Lower: []float64{-3, math.Inf(-1)}, Upper: []float64{3, 3}}, "finite"},
	} {
		calls := 0
		f := countingDensity{g: gauss2{mu: [2]float64{0, 0}, sd: [2]float64{1, 1}}, calls: &calls}
		noPanic(t, c.name, func() {
			_, err := Density2D(f, c.cfg)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
			}
			if calls != 0 {
				t.Errorf("%s: the density was evaluated %d times before the error", c.name, calls)
			}
		})
	}
	// Mass 0 is the empty region (the conformal region of a notebook can be): drawn, not refused.
	if _, err := Density2D(gauss2{mu: [2]float64{0, 0}, sd: [2]float64{1, 1}}, box(DensityConfig{Levels: []float64{0.5, 0}})); err != nil {
		t.Errorf("levels 0.5 and 0: %v", err)
	}
}

type countingDensity struct {
	g     gauss2
	calls *int
}

func (c countingDensity) LogProb(theta *mat.Dense) []float64 {
	*c.calls++
	return c.g.LogProb(theta)
}

// TestGridPointsLimit: ConditionalPairs and CornerWith refuse more than MaxDensityPoints grid
// points per axis, as Density2D does, before they allocate the grids: ConditionalPairs with an
// error (before the density is evaluated), CornerWith with its panic on bad options.
func TestGridPointsLimit(t *testing.T) {
	calls := 0
	f := countingDensity{g: gauss2{mu: [2]float64{0, 0}, sd: [2]float64{1, 1}}, calls: &calls}
	noPanic(t, "ConditionalPairs", func() {
		_, err := ConditionalPairs(f, ConditionalConfig{At: []float64{0, 0}, Lower: []float64{-3, -3}, Upper: []float64{3, 3}, Points: 1 << 24})
		if err == nil || !strings.Contains(err.Error(), "Points = 16777216") {
			t.Errorf("ConditionalPairs: error %v, want one naming Points = 16777216", err)
		}
		if calls != 0 {
			t.Errorf("ConditionalPairs: the density was evaluated %d times before the error", calls)
		}
	})
	func() {
		defer func() {
			if v := fmt.Sprint(recover()); !strings.HasPrefix(v, "viz: Corner: Points = 16777216") {
				t.Errorf("CornerWith: recovered %q, want the panic of its options naming Points = 16777216", v)
			}
		}()
		CornerWith(CornerConfig{Points: 1 << 24}, correlated(1, 50, []float64{0, 1}, 1, 0.5))
	}()
}
