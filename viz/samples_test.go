package viz

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSampleFiguresDraws: Corner and Marginals leave draws with a NaN or ±Inf value out and
// their legend counts them, where they were left out without a word (and still counted in the
// histograms' normalization, so the densities drawn integrated to less than their share); a
// set without draws, or without one finite draw, is refused with the panic of their bad
// options, where it drew empty panels (NaN densities); and CornerWith refuses more parameters
// than MaxCornerParams, or more grid cells than MaxCornerCells, before a panel is allocated.
func TestSampleFiguresDraws(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(-1)
	none := mat.NewDense(1, 2, nil).Slice(0, 0, 0, 2).(*mat.Dense)
	allBad := mat.NewDense(2, 2, []float64{nan, 0, 1, inf})
	for _, c := range []struct {
		name string
		call func()
		want string
	}{
		{"Corner no draws", func() { Corner(none) }, "viz: Corner: sample set 0 holds no draws"},
		{"Corner no finite draw", func() { Corner(correlated(1, 20, []float64{0, 1}, 1, 0.5), allBad) },
			"viz: Corner: sample set 1 holds no draw without NaN or ±Inf (of 2)"},
		{"Marginals no draws", func() { Marginals(MarginalsConfig{}, none) }, "viz: Marginals: sample set 0 holds no draws"},
		{"Marginals no finite draw", func() { Marginals(MarginalsConfig{}, allBad) },
			"viz: Marginals: sample set 0 holds no draw without NaN or ±Inf (of 2)"},
		{"Corner too many parameters", func() { Corner(mat.NewDense(2, MaxCornerParams+1, nil)) },
			fmt.Sprintf("viz: Corner: %d parameters, more than MaxCornerParams (%d)", MaxCornerParams+1, MaxCornerParams)},
		{"Corner too many cells", func() { CornerWith(CornerConfig{Points: MaxDensityPoints}, mat.NewDense(2, 9, nil)) },
			"viz: Corner: Points = 1000 grid cells per axis in each of 36 panels is 36000000 cells, more than MaxCornerCells"},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if v := fmt.Sprint(recover()); !strings.HasPrefix(v, c.want) {
					t.Errorf("recovered %q, want the panic %q…", v, c.want)
				}
			}()
			c.call()
		})
	}

	s := mat.NewDense(4, 2, []float64{0, 1, nan, 1, 0.5, 2, 1, inf})
	for _, c := range []struct {
		name  string
		plot  *Plot
		entry string
	}{
		{"Corner one set", Corner(s), "2 draws with NaN or ±Inf left out"},
		{"Corner labelled", CornerWith(CornerConfig{Labels: []string{"npe", "ref"}}, s, correlated(1, 20, []float64{0, 1}, 1, 0.5)),
			"npe (2 draws with NaN or ±Inf left out)"},
		{"Marginals", Marginals(MarginalsConfig{}, s), "samples 1 (2 draws with NaN or ±Inf left out)"},
	} {
		if !slices.Contains(c.plot.Legend(), c.entry) {
			t.Errorf("%s: legend %q, want the entry %q", c.name, c.plot.Legend(), c.entry)
		}
		if _, err := c.plot.PNG(); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	// The densities drawn are those of the finite draws: the step outline over a range that
	// holds them all integrates to 1.
	cols, _ := finiteColumns(s)
	pts := marginalCurves([][][]float64{cols}, 0, 10, -1, 2)[0]
	var area float64
	for k := range len(pts) - 1 {
		area += pts[k].Y * (pts[k+1].X - pts[k].X)
	}
	if math.Abs(area-1) > 1e-12 {
		t.Errorf("the marginal of the finite draws integrates to %v, want 1", area)
	}
}
