package viz

import (
	"math"
	"testing"
)

// TestNiceTicksNarrowRange: the ticks of a range only a few units in the last place wide (a
// metric equal over seeds up to rounding, 0.1+0.2 against 0.3) are a few increasing ticks,
// instead of an endless loop that adds a step too small to change the tick; a plot of such
// data renders.
func TestNiceTicksNarrowRange(t *testing.T) {
	for _, c := range []struct{ lo, hi float64 }{
		{0.3, 0.1 + 0.2},
		{1, math.Nextafter(1, 2)},
		{1e17, 1e17 + 16},
		{-1e-300, 1e-300},
		{0, 1},
		{-3.7, 12.2},
	} {
		ticks := niceTicks{n: 6, labels: true}.Ticks(c.lo, c.hi)
		if len(ticks) == 0 || len(ticks) > 14 {
			t.Errorf("[%v, %v]: %d ticks", c.lo, c.hi, len(ticks))
			continue
		}
		for k := 1; k < len(ticks); k++ {
			if !(ticks[k].Value > ticks[k-1].Value) {
				t.Errorf("[%v, %v]: ticks %v are not increasing", c.lo, c.hi, ticks)
				break
			}
		}
	}
	if got := (niceTicks{n: 6, labels: true}).Ticks(0, 1); len(got) != 6 || got[5].Value != 1 || got[1].Label != "0.2" {
		t.Errorf("ticks of [0, 1]: %v", got)
	}
	if _, err := LossCurves([]float64{0.3, 0.1 + 0.2, 0.3}, nil).PNG(); err != nil {
		t.Error(err)
	}
}
