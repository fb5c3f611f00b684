package diag

import (
	"strconv"
	"strings"
	"testing"
)

// TestGridCellsBounded asks the grid diagnostics for more than MaxGridCells cells: each must
// refuse before it allocates the grid (2^30 points per axis made a product that wraps, where an int has 32 or 64 bits), and
// the largest grid the error suggests must be accepted by the check.
func TestGridCellsBounded(t *testing.T) {
	for _, c := range []struct {
		dim, points, most int
	}{
		{2, 4097, 4096},
		{3, 257, 256},
		{3, 1 << 30, 256},
		{1, 1<<24 + 1, 1 << 24},
	} {
		m := gaussModel{dim: c.dim, tau: 2, s: 1, width: 1}
		theta, x := m.simulate(3, 5)
		lo, hi := make([]float64, c.dim), make([]float64, c.dim)
		for i := range hi {
			lo[i], hi[i] = -5, 5
		}
		cfg := GridConfig{Lower: lo, Upper: hi, Points: c.points}
		want := "more than MaxGridCells"
		if _, err := GridCoverage(m, theta, x, cfg); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("GridCoverage, %d points in %d dimensions: error %v, want one containing %q", c.points, c.dim, err, want)
		} else if !strings.Contains(err.Error(), "use at most "+strconv.Itoa(c.most)+" points") {
			t.Errorf("%d dimensions: %v, want the suggestion of %d points", c.dim, err, c.most)
		}
		if _, err := GridBiasVariance(m, theta, x, cfg); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("GridBiasVariance, %d points in %d dimensions: error %v, want one containing %q", c.points, c.dim, err, want)
		}
	}
}
