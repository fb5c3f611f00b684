package sbi

import (
	"context"
	"fmt"
	"math"
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
		{2, halfWord, false},                    // 2⁶⁴ (2³²) cells: the product wraps to 0
		{3, 1 << 22, false},                     // 2⁶⁶ cells
		{2, int(math.Sqrt(math.MaxInt)), false}, // at most MaxInt cells: no overflow, far beyond memory
		{2, 1<<12 + 1, false},                   // just above 2²⁴ cells
		{1, 1 << 24, true},                      // at the bound
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

// discPrior is the uniform prior on the disc of radius 0.9 centred at 0, whose smallest box is
// [−0.9, 0.9]²: a support that is not its box.
type discPrior struct{ dist.Distribution }

func newDiscPrior() discPrior { return discPrior{dist.NewUniformCube(-0.9, 0.9, 2)} }

func (d discPrior) InSupport(x []float64) bool {
	return len(x) == 2 && x[0]*x[0]+x[1]*x[1] < 0.81
}

func (d discPrior) LogProb(theta *mat.Dense) []float64 {
	lp := d.Distribution.LogProb(theta)
	for i := range lp {
		lp[i] = -math.Log(math.Pi * 0.81)
		if !d.InSupport(theta.RawRowView(i)) {
			lp[i] = math.Inf(-1)
		}
	}
	return lp
}

func (d discPrior) Sample(rng *rand.Rand, n int) *mat.Dense {
	out := mat.NewDense(n, 2, nil)
	for i := 0; i < n; {
		row := d.Distribution.Sample(rng, 1).RawRowView(0)
		if d.InSupport(row) {
			out.SetRow(i, row)
			i++
		}
	}
	return out
}

// TestGridDrawsInsideSupport checks that grid sampling keeps every draw inside the prior's
// support when the support is not the prior's box: a cell whose centre lies inside the disc
// may reach out of it, and a draw placed uniformly in such a cell used to land outside (where
// the prior, and so the posterior, has no mass) about one time in 40 at 20 points per side.
func TestGridDrawsInsideSupport(t *testing.T) {
	prior := newDiscPrior()
	flat := func(theta *mat.Dense) []float64 { n, _ := theta.Dims(); return make([]float64, n) }
	for _, points := range []int{20, 512} {
		p := newRatioPosterior("test", nil, prior, flat, nil, SamplerConfig{Method: SamplerGrid, GridPoints: points})
		const n = 20000
		s, err := p.SampleContext(t.Context(), rand.New(rand.NewPCG(1, 2)), n)
		if err != nil {
			t.Fatal(err)
		}
		outside, r2 := 0, 0.0
		for i := range n {
			row := s.RawRowView(i)
			if !prior.InSupport(row) {
				outside++
			}
			r2 += (row[0]*row[0] + row[1]*row[1]) / n
		}
		if outside > 0 {
			t.Errorf("GridPoints %d: %d of %d draws outside the prior's support, want none", points, outside, n)
		}
		// The flat posterior is the uniform disc: r² ~ U(0, 0.81), mean 0.405, SD 0.234. The
		// tolerance is 4 standard errors and the grid's error: the boundary cells, of width
		// 1.8/points, hold their centre's mass in their part of the disc.
		if tol := 4*0.234/math.Sqrt(n) + 0.9/float64(points); math.Abs(r2-0.405) > tol {
			t.Errorf("GridPoints %d: mean r² = %.4f, expected 0.405 ± %.4f", points, r2, tol)
		}
		t.Logf("GridPoints %d: mean r² = %.4f", points, r2)
	}
}
