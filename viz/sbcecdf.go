package viz

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gosbi/gosbi/internal/text"
	"github.com/gosbi/gosbi/sbi/diag"
)

// ecdfData is what SBCECDF draws for one parameter: the band polygon, the ECDF difference and
// the points outside the band.
type ecdfData struct {
	band, diff, outside plotter.XYs
}

func ecdfLayers(r *diag.ECDFResult, d int) ecdfData {
	var out ecdfData
	out.band = bandPolygon(r.Z, r.Lower, r.Upper)
	for j, z := range r.Z {
		out.diff = append(out.diff, plotter.XY{X: z, Y: r.Diff[d][j]})
	}
	for _, j := range r.Outside()[d] {
		out.outside = append(out.outside, plotter.XY{X: r.Z[j], Y: r.Diff[d][j]})
	}
	return out
}

// SBCECDF draws SBC as bayesplot, ArviZ and sbi draw it: per parameter, the difference between the
// empirical distribution function of the fractional ranks and the uniform one, inside the
// simultaneous band of Säilynoja et al. (2022) that holds the whole curve of uniform ranks
// with the result's confidence (diag.SBCECDF). Points outside the band are ringed, and the
// panel title turns vermillion; the verdict of diag.ECDFResult uses the same band. When the
// result cannot be drawn (nil, no parameters, no evaluation points, a band or an ECDF
// difference without one finite value per point), the plot draws nothing: rendering it
// returns an error saying why.
func SBCECDF(r *diag.ECDFResult) *Plot {
	if r == nil {
		return failedFigure(6*cm, 5*cm, fmt.Errorf("viz: SBCECDF: no result"))
	}
	if why := ecdfUndrawable(r); why != "" {
		return failedFigure(6*cm, 5*cm, fmt.Errorf("viz: SBCECDF: the result cannot be drawn: %s", why))
	}
	var plots []*plot.Plot
	for d := range r.Diff {
		lay := ecdfLayers(r, d)
		title := fmt.Sprintf("θ%s", subscript(d+1))
		if len(lay.outside) > 0 {
			title += fmt.Sprintf("   %d points outside", len(lay.outside))
		}
		p := newPlot(title, "fractional rank", "")
		if len(lay.outside) > 0 {
			p.Title.TextStyle.Color = Color(1)
		}
		if d == 0 {
			p.Y.Label.Text = "ECDF − uniform"
		}
		if band, err := plotter.NewPolygon(lay.band); err == nil {
			band.Color = color.NRGBA{0x80, 0x80, 0x80, 0x50}
			band.LineStyle.Width = 0
			p.Add(band)
		}
		p.Add(hLine(0, 0, 1))
		if l, err := plotter.NewLine(lay.diff); err == nil {
			l.Color, l.Width = Color(0), vg.Points(1.5)
			p.Add(l)
		}
		if len(lay.outside) > 0 {
			rings, _ := plotter.NewScatter(lay.outside)
			rings.Shape, rings.Color, rings.Radius = draw.RingGlyph{}, Color(1), vg.Points(3)
			p.Add(rings)
		}
		p.X.Min, p.X.Max = 0, 1
		p.X.Tick.Marker = fixedTicks(0, 1, 0.25, "%.2f")
		p.Y.Tick.Marker = niceTicks{n: 5, labels: true}
		padY(p)
		plots = append(plots, p)
	}
	return row(plots, 6*cm, 5*cm, ecdfLegend(r))
}

// ecdfLegend names SBCECDF's layers: the band, the curve and the marks.
func ecdfLegend(r *diag.ECDFResult) []string {
	return []string{fmt.Sprintf("simultaneous %s band (%d pairs)", text.Percent(r.Confidence), r.N), "ECDF − uniform", "outside the band"}
}

// ecdfUndrawable says why SBCECDF cannot draw r, or returns "".
func ecdfUndrawable(r *diag.ECDFResult) string {
	switch {
	case len(r.Diff) == 0:
		return "it holds no parameters"
	case len(r.Z) == 0:
		return "it holds no evaluation points"
	case len(r.Lower) != len(r.Z) || len(r.Upper) != len(r.Z):
		return fmt.Sprintf("its band holds %d lower and %d upper bounds for %d points, expected one of each per point", len(r.Lower), len(r.Upper), len(r.Z))
	}
	for j, z := range r.Z {
		if !isFinite(z) || !isFinite(r.Lower[j]) || !isFinite(r.Upper[j]) {
			return fmt.Sprintf("its point %d is z = %v with band [%v, %v], expected finite values", j+1, z, r.Lower[j], r.Upper[j])
		}
	}
	for d, diff := range r.Diff {
		if len(diff) != len(r.Z) {
			return fmt.Sprintf("parameter %d holds %d ECDF differences for %d points, expected one per point", d+1, len(diff), len(r.Z))
		}
		for j, v := range diff {
			if !isFinite(v) {
				return fmt.Sprintf("parameter %d has ECDF difference %v at z = %.3g, expected a finite value", d+1, v, r.Z[j])
			}
		}
	}
	return ""
}
