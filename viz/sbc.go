package viz

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gosbi/gosbi/sbi/diag"
)

// SBCRanks draws one histogram of SBC ranks per parameter, with the band that holds 99% of the
// bin counts of uniform ranks (Talts et al. 2018, Fig. 1) and the expected count as a dashed
// line. Panel titles carry the χ² p-value of diag.SBC, whose test bins keep about 20 expected
// counts each, and name its number of bins when it is not the number drawn (at most 30, with
// about 10 counts each, for a readable histogram). When the result cannot be drawn (nil, no
// parameters, not the same positive number of ranks per parameter, a rank outside [0, Samples],
// Samples < 1, or not one p-value per parameter), the plot draws nothing: rendering it returns
// an error saying why.
func SBCRanks(r *diag.SBCResult) *Plot {
	if r == nil {
		return failedFigure(6*cm, 5*cm, fmt.Errorf("viz: SBCRanks: no result"))
	}
	if why := sbcUndrawable(r); why != "" {
		return failedFigure(6*cm, 5*cm, fmt.Errorf("viz: SBCRanks: the result cannot be drawn: %s", why))
	}
	dim := len(r.Ranks)
	n := len(r.Ranks[0])
	bins := displayBins(r.Samples, n)
	plots := make([]*plot.Plot, dim)
	for d := range dim {
		counts := make([]float64, bins)
		for _, k := range r.Ranks[d] {
			counts[k*bins/(r.Samples+1)]++
		}
		p := newPlot(sbcTitle(r, d, bins), "rank", "")
		if d == 0 {
			p.Y.Label.Text = "count"
		}
		width := float64(r.Samples+1) / float64(bins)
		// The 99% band of a bin's count under uniform ranks: Binomial(n, 1/bins) quantiles.
		lower, upper := diag.BinomialBand(n, []float64{1 / float64(bins)}, 0.99)
		lo, hi := lower[0]*float64(n), upper[0]*float64(n)
		band, _ := plotter.NewPolygon(plotter.XYs{{X: 0, Y: lo}, {X: float64(r.Samples + 1), Y: lo}, {X: float64(r.Samples + 1), Y: hi}, {X: 0, Y: hi}})
		band.Color = color.NRGBA{0x80, 0x80, 0x80, 0x50}
		band.LineStyle.Width = 0
		hb := make([]plotter.HistogramBin, bins)
		ymax := hi
		for k := range bins {
			hb[k] = plotter.HistogramBin{Min: float64(k) * width, Max: float64(k+1) * width, Weight: counts[k]}
			ymax = max(ymax, counts[k])
		}
		h := &plotter.Histogram{Bins: hb, Width: width, FillColor: Translucent(Color(0), 0.55),
			LineStyle: draw.LineStyle{Color: Color(0), Width: vg.Points(0.5)}}
		mean := hLine(float64(n)/float64(bins), 0, float64(r.Samples+1))
		mean.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
		p.Add(band, h, mean)
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, float64(r.Samples+1), 0, 1.1*ymax
		p.X.Tick.Marker = niceTicks{n: 4, labels: true}
		p.Y.Tick.Marker = niceTicks{n: 5, labels: true}
		plots[d] = p
	}
	return row(plots, 6*cm, 5*cm, []string{"99% band of uniform ranks", "expected count"})
}

// sbcTitle is the title of parameter d's panel, which draws bins bins: its χ² p-value, with
// the bins of the test (r.Bins, chosen by diag for the test's own sample-size rule) named when
// they are not the bins drawn.
func sbcTitle(r *diag.SBCResult, d, bins int) string {
	if r.Bins > 0 && r.Bins != bins {
		return fmt.Sprintf("θ%s   χ² on %d bins: p = %.2g", subscript(d+1), r.Bins, r.PValues[d])
	}
	return fmt.Sprintf("θ%s   p = %.2g", subscript(d+1), r.PValues[d])
}

// sbcUndrawable says why SBCRanks cannot draw r, or returns "".
func sbcUndrawable(r *diag.SBCResult) string {
	switch {
	case len(r.Ranks) == 0:
		return "it holds no parameters"
	case r.Samples < 1:
		return fmt.Sprintf("it holds Samples = %d posterior draws per pair, expected at least 1", r.Samples)
	case len(r.PValues) != len(r.Ranks):
		return fmt.Sprintf("it holds %d p-values for %d parameters, expected one per parameter", len(r.PValues), len(r.Ranks))
	}
	for d, rk := range r.Ranks {
		if len(rk) == 0 {
			return fmt.Sprintf("parameter %d holds no ranks", d+1)
		}
		if len(rk) != len(r.Ranks[0]) {
			return fmt.Sprintf("parameter %d holds %d ranks, parameter 1 holds %d; expected the same test pairs for all", d+1, len(rk), len(r.Ranks[0]))
		}
		for _, k := range rk {
			if k < 0 || k > r.Samples {
				return fmt.Sprintf("parameter %d has rank %d, expected one in [0, %d] for Samples = %d", d+1, k, r.Samples, r.Samples)
			}
		}
	}
	return ""
}

// displayBins picks at most 30 bins that divide the M + 1 possible ranks evenly, with about
// 10 or more counts each.
func displayBins(m, n int) int {
	best := 1
	for b := 2; b <= min(30, m+1); b++ {
		if (m+1)%b == 0 && n/b >= 10 {
			best = b
		}
	}
	return best
}

// row lays gonum plots out in rows of at most 4, with aligned axes.
func row(plots []*plot.Plot, w, h vg.Length, legend []string) *Plot {
	cols := min(len(plots), 4)
	rows := (len(plots) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for i := range rows {
		grid[i] = make([]*plot.Plot, cols)
		for j := range cols {
			if k := i*cols + j; k < len(plots) {
				grid[i][j] = plots[k]
			}
		}
	}
	return newFigure(w*vg.Length(cols), h*vg.Length(rows), legend, func(c draw.Canvas) {
		tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(8), PadY: vg.Points(8), PadTop: vg.Points(2), PadRight: vg.Points(6)}
		cs := plot.Align(grid, tiles, c)
		for i := range rows {
			for j := range cols {
				if grid[i][j] != nil {
					grid[i][j].Draw(cs[i][j])
				}
			}
		}
	})
}
