package sbi

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/dist"
	"gonum.org/v1/gonum/mat"
)

// TestGridCellsBounded checks that grid sampling refuses, with an error naming GridPoints and
// the bound, a grid of more than maxGridCells cells before it allocates one (whose size
// overflows int, or exceeds memory), and still samples a grid within it.
func TestGridCellsBounded(t *testing.T) {
	flat := func(theta *mat.Dense) []float64 { n, _ := theta.Dims(); return make([]float64, n) }
	for _, c := range []struct {
		dim, points int
		ok          bool
	}{
		{2, 1 << 32, false},       // 2⁶⁴ cells: the product wraps to 0
		{3, 1 << 22, false},       // 2⁶⁶ cells
		{2, 3_000_000_000, false}, // 9·10¹⁸ cells: no overflow, far beyond memory
		{2, 1<<12 + 1, false},     // just above 2²⁴ cells
		{1, 1 << 24, true},        // at the bound
	} {
		t.Run(fmt.Sprintf("%d^%d", c.points, c.dim), func(t *testing.T) {
			prior := dist.NewUniformCube(0, 1, c.dim)
			p := newRatioPosterior("test", nil, prior, flat, nil, SamplerConfig{Method: SamplerGrid, GridPoints: c.points})
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						err = fmt.Errorf("panic: %v", r)
					}
				}()
				_, err = p.SampleContext(context.Background(), rand.New(rand.NewPCG(1, 1)), 3)
			}()
			switch {
			case c.ok && err != nil:
				t.Errorf("error %v, want draws", err)
			case !c.ok && (err == nil || !strings.Contains(err.Error(), "GridPoints") || strings.HasPrefix(err.Error(), "panic")):
				t.Errorf("error %v, want an error naming GridPoints and the bound", err)
			}
		})
	}
}
