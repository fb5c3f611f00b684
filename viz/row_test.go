package viz

import (
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// TestRowNilPlot: a nil plot in Row leaves an empty slot as wide as the widest plot, as a nil
// plot in Grid leaves an empty tile, instead of a nil-pointer panic; the row renders.
func TestRowNilPlot(t *testing.T) {
	blank := func(w vg.Length) *Plot { return newFigure(w, 2*vg.Inch, nil, func(draw.Canvas) {}) }
	for _, c := range []struct {
		name  string
		plots []*Plot
		width vg.Length
	}{
		{"nil between two", []*Plot{blank(2 * vg.Inch), nil, blank(3 * vg.Inch)}, 8 * vg.Inch},
		{"only nil", []*Plot{nil}, 6 * cm},
	} {
		var r *Plot
		noPanic(t, c.name, func() { r = Row(c.plots...) })
		if r == nil {
			continue
		}
		if r.Width != c.width {
			t.Errorf("%s: width %v, want %v", c.name, r.Width, c.width)
		}
		if _, err := r.PNG(); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
