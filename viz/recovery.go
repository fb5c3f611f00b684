package viz

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gosbi/gosbi/sbi/diag"
)

// recoveryPoints is what Recovery draws for parameter d: one point (contraction, z-score) per
// test pair.
func recoveryPoints(r *diag.RecoveryResult, d int) plotter.XYs {
	pts := make(plotter.XYs, len(r.ZScore[d]))
	for i := range pts {
		pts[i] = plotter.XY{X: r.Contraction[d][i], Y: r.ZScore[d][i]}
	}
	return pts
}

// Recovery draws posterior contraction against z-score, one panel per parameter and one point
// per test pair (the recovery view of Schad et al. 2021): points should spread between the
// dashed lines z = ±2, which hold 95% of the z-scores of a calibrated posterior, and lie to the
// right where the data inform the parameter. A cloud wider than the lines is over-confident, a
// cloud off centre biased. Titles give the z-scores' SD. When the result cannot be drawn
// (nil, no parameters, a parameter without test pairs, not one contraction per z-score, or a
// value that is not finite), the plot draws nothing: rendering it returns an error saying why.
func Recovery(r *diag.RecoveryResult) *Plot {
	if r == nil {
		return failedFigure(6*cm, 5.5*cm, fmt.Errorf("viz: Recovery: no result"))
	}
	if why := recoveryUndrawable(r); why != "" {
		return failedFigure(6*cm, 5.5*cm, fmt.Errorf("viz: Recovery: the result cannot be drawn: %s", why))
	}
	_, zs, _ := r.Summary()
	var plots []*plot.Plot
	for d := range r.ZScore {
		p := newPlot(fmt.Sprintf("θ%s   z SD %.2f", subscript(d+1), zs[d]), "posterior contraction", "")
		if d == 0 {
			p.Y.Label.Text = "posterior z-score"
		}
		sc, _ := plotter.NewScatter(recoveryPoints(r, d))
		sc.Shape, sc.Color, sc.Radius = draw.CircleGlyph{}, Translucent(Color(0), 0.5), vg.Points(1.5)
		p.Add(sc)
		lo, hi := minOf(r.Contraction[d]), maxOf(r.Contraction[d])
		lo, hi = min(lo, 0), max(hi, 1)
		for _, z := range []float64{-2, 2} {
			l := hLine(z, lo, hi)
			l.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
			p.Add(l)
		}
		p.X.Min, p.X.Max = lo, hi
		p.X.Tick.Marker = niceTicks{n: 4, labels: true}
		p.Y.Tick.Marker = niceTicks{n: 5, labels: true}
		plots = append(plots, p)
	}
	return row(plots, 6*cm, 5.5*cm, []string{fmt.Sprintf("test pairs (%d)", r.N), "z = ±2"})
}

// recoveryUndrawable says why Recovery cannot draw r, or returns "".
func recoveryUndrawable(r *diag.RecoveryResult) string {
	switch {
	case len(r.ZScore) == 0:
		return "it holds no parameters"
	case len(r.Contraction) != len(r.ZScore):
		return fmt.Sprintf("it holds contractions of %d parameters and z-scores of %d, expected both for each", len(r.Contraction), len(r.ZScore))
	}
	for d, zs := range r.ZScore {
		switch {
		case len(zs) == 0:
			return fmt.Sprintf("parameter %d holds no test pairs", d+1)
		case len(r.Contraction[d]) != len(zs):
			return fmt.Sprintf("parameter %d holds %d contractions for %d z-scores, expected one per z-score", d+1, len(r.Contraction[d]), len(zs))
		}
		for i, z := range zs {
			if c := r.Contraction[d][i]; !isFinite(z) || !isFinite(c) {
				return fmt.Sprintf("parameter %d, pair %d: z-score %v, contraction %v; expected finite values", d+1, i+1, z, c)
			}
		}
	}
	return ""
}

// isFinite reports whether v is neither NaN nor ±Inf.
func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
