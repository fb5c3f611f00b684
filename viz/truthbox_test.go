package viz

import (
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// flatDensity is a density that does not look at its points: 0 log density everywhere, even
// at NaN, so that a bad point reaches the drawing instead of an error of the density.
type flatDensity struct{}

func (flatDensity) LogProb(theta *mat.Dense) []float64 {
	r, _ := theta.Dims()
	return make([]float64, r)
}

// TestDensityPointsOutsideTheBox: a true value or held point that is not finite is an error
// naming the field (it was a nil-pointer panic on the marker gonum refuses), and one outside
// the box drawn, whose marker the axes cut off, is drawn with a legend that says so instead of
// a legend entry for a marker that is not there.
func TestDensityPointsOutsideTheBox(t *testing.T) {
	box := func(c DensityConfig) DensityConfig {
		c.Lower, c.Upper = []float64{-1, -1}, []float64{1, 1}
		return c
	}
	for _, c := range []struct {
		name string
		cfg  DensityConfig
		want string
	}{
		{"NaN truth", box(DensityConfig{Truth: []float64{math.NaN(), 0}}), "Truth[0] = NaN"},
		{"infinite truth", box(DensityConfig{Truth: []float64{0, math.Inf(1)}}), "Truth[1] = +Inf"},
	} {
		noPanic(t, c.name, func() {
			_, err := Density2D(flatDensity{}, c.cfg)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
			}
		})
	}
	for _, c := range []struct {
		name string
		at   []float64
		want string
	}{
		{"NaN point", []float64{math.NaN(), 0}, "At[0] = NaN"},
		{"infinite point", []float64{0, math.Inf(-1)}, "At[1] = -Inf"},
	} {
		noPanic(t, c.name, func() {
			_, err := ConditionalPairs(flatDensity{}, ConditionalConfig{At: c.at, Lower: []float64{-1, -1}, Upper: []float64{1, 1}})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
			}
		})
	}
	noPanic(t, "infinite box", func() {
		_, err := ConditionalPairs(flatDensity{}, ConditionalConfig{At: []float64{0, 0}, Lower: []float64{math.Inf(-1), -1}, Upper: []float64{1, 1}})
		if err == nil || !strings.Contains(err.Error(), "finite") {
			t.Errorf("infinite box: error %v, want one asking for a finite box", err)
		}
	})

	for _, c := range []struct {
		name  string
		plot  func() (*Plot, error)
		entry string
	}{
		{"truth inside", func() (*Plot, error) { return Density2D(flatDensity{}, box(DensityConfig{Truth: []float64{0.5, 0}})) },
			"true parameters"},
		{"truth outside", func() (*Plot, error) { return Density2D(flatDensity{}, box(DensityConfig{Truth: []float64{5, 0}})) },
			"true parameters (outside the box, not drawn)"},
		{"point inside", func() (*Plot, error) {
			return ConditionalPairs(flatDensity{}, ConditionalConfig{At: []float64{0, 0}, Lower: []float64{-1, -1}, Upper: []float64{1, 1}})
		}, "the point held fixed"},
		{"point outside", func() (*Plot, error) {
			return ConditionalPairs(flatDensity{}, ConditionalConfig{At: []float64{0, 3}, Lower: []float64{-1, -1}, Upper: []float64{1, 1}})
		}, "the point held fixed (outside the box, not drawn)"},
	} {
		p, err := c.plot()
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !slices.Contains(p.Legend(), c.entry) {
			t.Errorf("%s: legend %q, want the entry %q", c.name, p.Legend(), c.entry)
		}
	}
}
