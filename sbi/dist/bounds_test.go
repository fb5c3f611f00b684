package dist

import (
	"math"
	"testing"
)

// boxed is a distribution whose Support returns the given box, whatever it holds.
type boxed struct {
	*BoxUniform
	low, high []float64
}

func (b boxed) Support() (low, high []float64) { return b.low, b.high }

// TestBounds: Bounds reports a box only when every bound is finite, each low is below its
// high and there are Dim of them; a user's prior whose Support holds NaN, an empty or inverted
// interval or too few bounds is no box to lay a grid on.
func TestBounds(t *testing.T) {
	base := NewBoxUniform([]float64{0, 0}, []float64{1, 1})
	nan := math.NaN()
	for _, c := range []struct {
		name      string
		low, high []float64
		want      bool
	}{
		{"a box", []float64{0, -1}, []float64{1, 2}, true},
		{"unbounded", []float64{0, math.Inf(-1)}, []float64{1, 2}, false},
		{"NaN low", []float64{nan, 0}, []float64{1, 1}, false},
		{"NaN high", []float64{0, 0}, []float64{1, nan}, false},
		{"empty interval", []float64{0, 1}, []float64{1, 1}, false},
		{"inverted interval", []float64{2, 0}, []float64{1, 1}, false},
		{"too few bounds", []float64{0}, []float64{1}, false},
	} {
		if _, _, ok := Bounds(boxed{base, c.low, c.high}); ok != c.want {
			t.Errorf("%s: Bounds ok = %v, want %v", c.name, ok, c.want)
		}
	}
}
