package viz

import (
	"image/color"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/gosbi/gosbi/sbi/diag"
)

func init() {
	diag.RegisterReportFigures(reportFigures)
}

// reportFigures draws the plots of a calibration report: coverage curves, SBC ranks, TARP.
func reportFigures(r *diag.Report) []diag.Figure {
	var figs []diag.Figure
	add := func(title string, p *Plot) {
		p.DPI = 90
		if png, err := p.PNG(); err == nil {
			figs = append(figs, diag.Figure{Title: title, PNG: png})
		}
	}
	curves := []*diag.CoverageResult{r.Coverage}
	if r.Grid != nil {
		curves = append(curves, r.Grid)
	}
	add("expected coverage", Coverage(curves...))
	add("TARP", TARP(r.TARP))
	add("SBC ranks", SBCRanks(r.SBC))
	return figs
}

// TARP plots the TARP expected coverage probability against the credibility level, with the
// diagonal of a calibrated estimator.
func TARP(r *diag.TARPResult) *Plot {
	p := newPlot("", "credibility level", "expected coverage (TARP)")
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	p.X.Tick.Marker = fixedTicks(0, 1, 0.2, "%.1f")
	p.Y.Tick.Marker = fixedTicks(0, 1, 0.2, "%.1f")
	diagonal, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	diagonal.Color = color.Gray{60}
	diagonal.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	pts := make(plotter.XYs, len(r.Alpha))
	for k := range r.Alpha {
		pts[k] = plotter.XY{X: r.Alpha[k], Y: r.ECP[k]}
	}
	line, _ := plotter.NewLine(pts)
	line.Color, line.Width = Color(0), vg.Points(1.8)
	p.Add(diagonal, line)
	name := "ATC " + fmtSigned(r.ATC)
	p.Legend.Add("calibrated", diagonal)
	p.Legend.Add(name, line)
	return withSideLegend(p, []string{"calibrated", name}, 11*cm, 10*cm)
}

// Report arranges a calibration report's plots side by side as one figure.
func Report(r *diag.Report) *Plot {
	curves := []*diag.CoverageResult{r.Coverage}
	if r.Grid != nil {
		curves = append(curves, r.Grid)
	}
	return Row(Coverage(curves...), TARP(r.TARP), SBCRanks(r.SBC))
}
