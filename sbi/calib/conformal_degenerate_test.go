package calib

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestConformalQuantileNaNPanics: ConformalQuantile is documented to panic on NaN scores.
// sort.Float64s puts NaN first, so without the check a NaN took the first rank and the
// threshold came out silently (here 4, one rank below the one the finite scores give).
func TestConformalQuantileNaNPanics(t *testing.T) {
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(fmt.Sprint(r), "NaN") {
			t.Errorf("recovered %v, want a panic naming the NaN score", r)
		}
	}()
	got := ConformalQuantile([]float64{1, 2, math.NaN(), 3, 4, 5, 6, 7, 8}, 0.5)
	t.Errorf("ConformalQuantile with a NaN score returned %v, want a panic", got)
}
