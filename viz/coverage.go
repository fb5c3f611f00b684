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

// Coverage plots expected-coverage curves: coverage against credibility level for each result,
// the diagonal of perfect calibration, and the binomial band of the first result (where an
// exactly calibrated estimator's curve falls with the band's confidence). Curves above the
// diagonal are conservative, below over-confident. Legend entries carry each curve's label
// (or "estimator i") and its signed AUC.
func Coverage(results ...*diag.CoverageResult) *Plot {
	p := newPlot("", "credibility level", "expected coverage")
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	p.X.Tick.Marker = fixedTicks(0, 1, 0.2, "%.1f")
	p.Y.Tick.Marker = fixedTicks(0, 1, 0.2, "%.1f")
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{230}
	grid.Horizontal.Color = color.Gray{230}
	p.Add(grid)
	var legend []string
	if len(results) > 0 && results[0] != nil {
		r := results[0]
		pts := make(plotter.XYs, 0, 2*len(r.Levels))
		for k, l := range r.Levels {
			pts = append(pts, plotter.XY{X: l, Y: r.Upper[k]})
		}
		for k := len(r.Levels) - 1; k >= 0; k-- {
			pts = append(pts, plotter.XY{X: r.Levels[k], Y: r.Lower[k]})
		}
		if band, err := plotter.NewPolygon(pts); err == nil {
			band.Color = color.NRGBA{0x80, 0x80, 0x80, 0x50}
			band.LineStyle.Width = 0
			p.Add(band)
			name := fmt.Sprintf("%.0f%% band (n = %d)", 100*r.Confidence, r.N)
			p.Legend.Add(name, band)
			legend = append(legend, name)
		}
	}
	diagonal, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	diagonal.Color = color.Gray{60}
	diagonal.Width = vg.Points(1)
	diagonal.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(diagonal)
	p.Legend.Add("calibrated", diagonal)
	legend = append(legend, "calibrated")
	for i, r := range results {
		if r == nil {
			continue
		}
		pts := make(plotter.XYs, len(r.Levels))
		for k := range r.Levels {
			pts[k] = plotter.XY{X: r.Levels[k], Y: r.Coverage[k]}
		}
		line, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			continue
		}
		line.Color = Color(i)
		line.Width = vg.Points(1.8)
		sc.Color = Color(i)
		sc.Shape = draw.CircleGlyph{}
		sc.Radius = vg.Points(2)
		p.Add(line, sc)
		name := r.Label
		if name == "" {
			name = fmt.Sprintf("estimator %d", i+1)
			if len(results) == 1 {
				name = r.Method + " estimate"
			}
		}
		name = name + " (AUC " + fmtSigned(r.AUC) + ")"
		p.Legend.Add(name, line, sc)
		legend = append(legend, name)
	}
	return withSideLegend(p, legend, 11*cm, 10*cm)
}

// fixedTicks labels every step from lo to hi with format.
func fixedTicks(lo, hi, step float64, format string) plot.Ticker {
	var ts plot.ConstantTicks
	for v := lo; v <= hi+step/2; v += step {
		ts = append(ts, plot.Tick{Value: v, Label: fmt.Sprintf(format, v)})
	}
	return ts
}

func fmtSigned(v float64) string { return fmt.Sprintf("%+.3f", v) }

// MarginalCoverage plots the coverage of each parameter's central credible intervals against
// their credibility, one curve per parameter, with the diagonal and the binomial band.
func MarginalCoverage(r *diag.MarginalResult) *Plot {
	curves := make([]*diag.CoverageResult, len(r.Coverage))
	for d, c := range r.Coverage {
		cr := &diag.CoverageResult{Label: "θ" + subscript(d+1), Method: "marginal", N: r.N, Levels: r.Levels,
			Coverage: c, Lower: r.Lower, Upper: r.Upper, Confidence: diag.DefaultConfidence}
		for k, l := range r.Levels {
			cr.AUC += (c[k] - l) / float64(len(r.Levels))
		}
		curves[d] = cr
	}
	p := Coverage(curves...)
	return p
}
