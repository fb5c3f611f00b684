package viz

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/gosbi/gosbi/sbi/diag"
)

// Report returns the calibration report r for display with its plots: the report's table,
// then the expected coverage (rank estimator, and grid estimator when present), TARP, the SBC
// rank histograms and ECDF with its simultaneous band and, with an observation, the misspecification check,
// L-C2ST and the MCMC chains at it. Displaying r itself shows the table alone, since package diag does not draw.
// A plot that cannot be drawn is replaced by a line saying why.
func Report(r *diag.Report) diag.ReportWithFigures {
	curves := []*diag.CoverageResult{r.Coverage}
	if r.Grid != nil {
		curves = append(curves, r.Grid)
	}
	plots := []struct {
		title string
		p     *Plot
	}{
		{"expected coverage", Coverage(curves...)},
		{"TARP", TARP(r.TARP)},
		{"SBC ranks", SBCRanks(r.SBC)},
	}
	if e, err := diag.SBCECDF(r.SBC, 0); err == nil {
		plots = append(plots, struct {
			title string
			p     *Plot
		}{"SBC ECDF", SBCECDF(e)})
	}
	if r.Misspec != nil {
		plots = append(plots, struct {
			title string
			p     *Plot
		}{"misspecification at x_o", Misspecification(r.Misspec)})
	}
	if r.Local != nil {
		plots = append(plots, struct {
			title string
			p     *Plot
		}{"L-C2ST at x_o", LC2ST(r.Local)})
	}
	if r.MCMC != nil && r.MCMC.Assessed() {
		plots = append(plots, struct {
			title string
			p     *Plot
		}{"MCMC at x_o", MCMC(r.MCMC)})
	}
	figs := make([]diag.Figure, len(plots))
	for i, pl := range plots {
		pl.p.DPI = 90
		png, err := pl.p.PNG()
		if err != nil {
			figs[i] = diag.Figure{Title: fmt.Sprintf("%s: cannot draw the plot: %v", pl.title, err)}
			continue
		}
		figs[i] = diag.Figure{Title: pl.title, PNG: png}
	}
	return diag.ReportWithFigures{Report: r, Figures: figs}
}

// TARP plots the TARP expected coverage probability against the credibility level, with the
// diagonal of a calibrated estimator. When the result cannot be drawn (nil, no levels, not one
// coverage value in [0, 1] per level in [0, 1]), the plot draws nothing: rendering it returns
// an error saying why.
func TARP(r *diag.TARPResult) *Plot {
	if r == nil {
		return failedFigure(11*cm, 10*cm, fmt.Errorf("viz: TARP: no result"))
	}
	if why := tarpUndrawable(r); why != "" {
		return failedFigure(11*cm, 10*cm, fmt.Errorf("viz: TARP: the result cannot be drawn: %s", why))
	}
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

// tarpUndrawable says why TARP cannot draw r, or returns "".
func tarpUndrawable(r *diag.TARPResult) string {
	switch {
	case len(r.Alpha) == 0:
		return "it holds no credibility levels"
	case len(r.ECP) != len(r.Alpha):
		return fmt.Sprintf("it holds %d coverage values for %d levels, expected one per level", len(r.ECP), len(r.Alpha))
	}
	for k, a := range r.Alpha {
		if !(a >= 0 && a <= 1) {
			return fmt.Sprintf("its level %d is %v, expected one in [0, 1]", k+1, a)
		}
		if e := r.ECP[k]; !(e >= 0 && e <= 1) {
			return fmt.Sprintf("its coverage at level %.3g is %v, expected a fraction in [0, 1]", a, e)
		}
	}
	return ""
}
