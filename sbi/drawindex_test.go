package sbi

import (
	"math/rand/v2"
	"testing"
)

// constSource is a rand.Source that returns v every time.
type constSource uint64

func (s constSource) Uint64() uint64 { return uint64(s) }

// TestDrawIndexSkipsZeroWeights checks that drawIndex never picks an index of zero weight,
// also when the uniform draw falls exactly on a cumulative sum (a draw of exactly 0 before
// leading zero weights, or exactly on the sum before a zero weight).
func TestDrawIndexSkipsZeroWeights(t *testing.T) {
	half := uint64(1) << 52 // Float64() = 0.5
	for _, c := range []struct {
		name string
		u    uint64
		cdf  []float64
		want int
	}{
		{"draw 0, leading zero weights", 0, []float64{0, 0, 1}, 2},
		{"draw 0, positive first weight", 0, []float64{0.25, 1}, 0},
		{"draw on a sum before a zero weight", half, []float64{0.5, 0.5, 1}, 2},
		{"draw inside the first cell", half, []float64{0.75, 1}, 0},
	} {
		if got := drawIndex(rand.New(constSource(c.u)), c.cdf); got != c.want {
			t.Errorf("%s: cdf %v, draw %v: index %d, want %d", c.name, c.cdf, rand.New(constSource(c.u)).Float64(), got, c.want)
		}
	}
}
