package viz

import (
	"math"
	"testing"
)

// TestHistogramOfOneValueCentresItsBar: the bins of a set whose values are all equal had the
// value on a bin edge (the range [c − 0.5, c + 0.5] in 30 bins puts c at the left edge of bin
// 15), so its bar stood beside the observation line drawn at c. The bar holding the values
// must now be centred on the value, for ranges that put it on an edge or not.
func TestHistogramOfOneValueCentresItsBar(t *testing.T) {
	for _, c := range []struct {
		name   string
		v      float64
		lo, hi float64
		bins   int
	}{
		{"PredictiveCheck's range of a constant", 7, 6.5, 7.5, 30},
		{"value off the grid", 0.3, 0, 1, 20},
		{"collapsed range", 2, 2, 2, 30},
		{"value at the low end", -4, -4, 10, 30},
	} {
		h, _ := histogram([]float64{c.v, c.v, c.v}, c.bins, c.lo, c.hi)
		found := false
		for _, b := range h.Bins {
			if b.Weight == 0 {
				continue
			}
			found = true
			if mid := (b.Min + b.Max) / 2; !(b.Min < c.v && c.v < b.Max) || math.Abs(mid-c.v) > 1e-12*math.Max(1, math.Abs(c.v)) {
				t.Errorf("%s: the bar of %v spans [%v, %v], want it centred on the value", c.name, c.v, b.Min, b.Max)
			}
		}
		if !found {
			t.Errorf("%s: no bar holds %v", c.name, c.v)
		}
	}
}
