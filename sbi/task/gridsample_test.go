package task

import (
	"math/rand/v2"
	"testing"
)

// zeroSource is a rand.Source whose Float64 is exactly 0.
type zeroSource struct{}

func (zeroSource) Uint64() uint64 { return 0 }

// TestGridPosteriorSkipsEmptyCells checks that a uniform draw of exactly 0 does not put a
// draw in a leading cell of zero mass.
func TestGridPosteriorSkipsEmptyCells(t *testing.T) {
	g := &GridPosterior{Low: []float64{0, 0}, High: []float64{1, 1}, Bins: 2, cdf: []float64{0, 0, 1, 1}}
	d := g.Sample(rand.New(zeroSource{}), 1)
	if a, b := d.At(0, 0), d.At(0, 1); a < 0.5 || b >= 0.5 {
		t.Errorf("a draw at (%v, %v), in a cell of zero mass; want it in cell (1, 0), [0.5, 1) × [0, 0.5)", a, b)
	}
}
