package viz

import (
	"fmt"
	"image/color"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gosbi/gosbi/internal/text"
	"github.com/gosbi/gosbi/sbi/diag"
)

// Coverage plots expected-coverage curves: coverage against credibility level for each result,
// the diagonal of perfect calibration, and the two binomial bands of the first result (nil
// results are skipped; when every result given is nil, the plot draws nothing and rendering it
// returns an error): the simultaneous band (light), which holds an exactly calibrated
// estimator's whole curve with its confidence and is the band diag.CoverageResult.Verdict
// judges by, and inside it the pointwise band (dark), which holds the curve at each level on
// its own. Levels outside the simultaneous band (CoverageResult.Flagged) are ringed. Curves
// above the diagonal are conservative, below over-confident. Legend entries carry each curve's
// label (or "estimator i") and its signed AUC. A result built by hand without bands or
// confidences gets the bands diag computes for it (at diag.DefaultConfidence), so that the
// figure shows what its table and verdict use. When a result cannot be drawn (no levels, a
// level outside [0, 1], fewer than one test pair, or not one coverage value in [0, 1] per
// level), the plot draws nothing: rendering it returns an error naming the result.
func Coverage(results ...*diag.CoverageResult) *Plot { return coverageFigure(results, 0) }

// coverageFigure draws Coverage's figure; params > 1 is the number of parameters the
// simultaneous band holds over besides the levels (MarginalCoverage's band), which its
// legend entry then names, and 0 a band over the levels of one curve.
func coverageFigure(results []*diag.CoverageResult, params int) *Plot {
	if len(results) > 0 && !slices.ContainsFunc(results, func(r *diag.CoverageResult) bool { return r != nil }) {
		return failedFigure(11*cm, 10*cm, fmt.Errorf("viz: Coverage: all %d results are nil, so there is no curve to draw: a nil result is what a failed diag call returns beside its error (check it)", len(results)))
	}
	for i, r := range results {
		if r == nil {
			continue
		}
		if err := r.Judgeable(); err != nil {
			return failedFigure(11*cm, 10*cm, fmt.Errorf("viz: Coverage: result %d (%q) cannot be drawn: %w", i, r.Label, err))
		}
	}
	p := newPlot("", "credibility level", "expected coverage")
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	p.X.Tick.Marker = fixedTicks(0, 1, 0.2, "%.1f")
	p.Y.Tick.Marker = fixedTicks(0, 1, 0.2, "%.1f")
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{230}
	grid.Horizontal.Color = color.Gray{230}
	p.Add(grid)
	var legend []string
	lay := coverageLayers(results)
	if params > 1 && lay.sim != nil {
		lay.simName = simBandName(results[0], fmt.Sprintf("all %d parameters × %s", params, text.Count(len(results[0].Levels), "level")))
	}
	for _, b := range []struct {
		pts   plotter.XYs
		name  string
		alpha uint8
	}{{lay.sim, lay.simName, 0x38}, {lay.point, lay.pointName, 0x60}} {
		if b.pts == nil {
			continue
		}
		if band, err := plotter.NewPolygon(b.pts); err == nil {
			band.Color = color.NRGBA{0x80, 0x80, 0x80, b.alpha}
			band.LineStyle.Width = 0
			p.Add(band)
			p.Legend.Add(b.name, band)
			legend = append(legend, b.name)
		}
	}
	diagonal, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	diagonal.Color = color.Gray{60}
	diagonal.Width = vg.Points(1)
	diagonal.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(diagonal)
	p.Legend.Add("calibrated", diagonal)
	legend = append(legend, "calibrated")
	anyFlagged := false
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
				name = string(r.Method) + " estimate"
			}
		}
		name = name + " (AUC " + fmtSigned(r.AUC) + ")"
		p.Legend.Add(name, line, sc)
		legend = append(legend, name)
		if f := lay.flagged[i]; len(f) > 0 {
			if rings, err := plotter.NewScatter(f); err == nil {
				rings.Color = Color(i)
				rings.Shape = draw.RingGlyph{}
				rings.Radius = vg.Points(4.5)
				p.Add(rings)
				anyFlagged = true
			}
		}
	}
	if anyFlagged {
		ring, _ := plotter.NewScatter(plotter.XYs{{X: -1, Y: -1}})
		ring.Color = color.Gray{60}
		ring.Shape = draw.RingGlyph{}
		ring.Radius = vg.Points(4.5)
		p.Legend.Add(flaggedName, ring)
		legend = append(legend, flaggedName)
	}
	return withSideLegend(p, legend, 11*cm, 10*cm)
}

const flaggedName = "outside the simultaneous band"

// coverageData is what Coverage draws besides the curves: the polygons of the first non-nil
// result's simultaneous and pointwise bands (nil without one) with their legend names, and,
// per result, the points of its curve outside its own simultaneous band.
type coverageData struct {
	sim, point         plotter.XYs
	simName, pointName string
	flagged            []plotter.XYs
}

func coverageLayers(results []*diag.CoverageResult) coverageData {
	var c coverageData
	c.flagged = make([]plotter.XYs, len(results))
	for i, r := range results {
		if r == nil {
			continue
		}
		below, above := r.Flagged()
		for _, k := range append(below, above...) {
			c.flagged[i] = append(c.flagged[i], plotter.XY{X: r.Levels[k], Y: r.Coverage[k]})
		}
	}
	k := slices.IndexFunc(results, func(r *diag.CoverageResult) bool { return r != nil })
	if k < 0 {
		return c
	}
	r := results[k]
	slo, shi, _ := r.Simultaneous()
	c.sim = bandPolygon(r.Levels, slo, shi)
	c.simName = simBandName(r, "all "+text.Count(len(r.Levels), "level"))
	plo, phi, pconf := r.Pointwise()
	c.point = bandPolygon(r.Levels, plo, phi)
	c.pointName = "pointwise " + text.Percent(pconf) + " band, each level"
	return c
}

// simBandName is the legend entry of r's simultaneous band, which holds over scope.
func simBandName(r *diag.CoverageResult, scope string) string {
	_, _, conf := r.Simultaneous()
	return fmt.Sprintf("simultaneous %s band, %s (n = %d)", text.Percent(conf), scope, r.N)
}

// bandPolygon is the closed outline of a band: the upper edge left to right, the lower edge back.
func bandPolygon(levels, lower, upper []float64) plotter.XYs {
	pts := make(plotter.XYs, 0, 2*len(levels))
	for k, l := range levels {
		pts = append(pts, plotter.XY{X: l, Y: upper[k]})
	}
	for k := len(levels) - 1; k >= 0; k-- {
		pts = append(pts, plotter.XY{X: levels[k], Y: lower[k]})
	}
	return pts
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
// their credibility, one curve per parameter, with the diagonal, the pointwise binomial band
// and the band simultaneous over all parameters and levels (diag.MarginalResult.SimLower),
// outside which levels are ringed. When the result cannot be drawn (nil, no parameters, or a
// parameter's curve that Coverage could not draw: no levels or one outside [0, 1], not one
// coverage value in [0, 1] per level, no test pairs), the plot draws nothing: rendering it
// returns an error saying why.
func MarginalCoverage(r *diag.MarginalResult) *Plot {
	if r == nil {
		return failedFigure(11*cm, 10*cm, fmt.Errorf("viz: MarginalCoverage: no result"))
	}
	if len(r.Coverage) == 0 {
		return failedFigure(11*cm, 10*cm, fmt.Errorf("viz: MarginalCoverage: the result cannot be drawn: it holds no parameters"))
	}
	curves, err := marginalCoverageCurves(r)
	if err != nil {
		return failedFigure(11*cm, 10*cm, err)
	}
	return coverageFigure(curves, len(curves))
}

// marginalCoverageCurves turns each parameter of r into a coverage curve with the pointwise band and
// the band simultaneous over all parameters and levels, or returns an error naming a
// parameter Coverage could not draw.
func marginalCoverageCurves(r *diag.MarginalResult) ([]*diag.CoverageResult, error) {
	curves := make([]*diag.CoverageResult, len(r.Coverage))
	slo, shi := r.Simultaneous()
	for d, c := range r.Coverage {
		cr := &diag.CoverageResult{Label: "θ" + subscript(d+1), Method: "marginal", N: r.N, Levels: r.Levels,
			Coverage: c, Lower: r.Lower, Upper: r.Upper, Confidence: diag.DefaultConfidence,
			SimLower: slo, SimUpper: shi, SimConfidence: diag.DefaultConfidence}
		if err := cr.Judgeable(); err != nil {
			return nil, fmt.Errorf("viz: MarginalCoverage: the result cannot be drawn: parameter %d: %w", d+1, err)
		}
		for k, l := range r.Levels {
			cr.AUC += (c[k] - l) / float64(len(r.Levels))
		}
		curves[d] = cr
	}
	return curves, nil
}
