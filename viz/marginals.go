package viz

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// MarginalsConfig configures Marginals. The zero value is usable.
type MarginalsConfig struct {
	Names  []string  // parameter names; default θ₁, θ₂, …
	Labels []string  // one legend label per sample set; default "samples i"
	Truth  []float64 // true parameters, a vertical line per panel; nil for none
	Bins   int       // histogram bins; default 40, at most MaxHistogramBins
}

// marginalCurves returns, for parameter d, the density histogram of each set as the step
// outline over the common range [lo, hi]: bins+1 points whose heights integrate to the share
// of the set inside the range.
func marginalCurves(cols [][][]float64, d, bins int, lo, hi float64) []plotter.XYs {
	w := (hi - lo) / float64(bins)
	out := make([]plotter.XYs, len(cols))
	for s := range cols {
		counts := binCounts(cols[s][d], bins, lo, hi)
		n := float64(len(cols[s][d]))
		pts := make(plotter.XYs, bins+1)
		for k, c := range counts {
			pts[k] = plotter.XY{X: lo + float64(k)*w, Y: c / (n * w)}
		}
		pts[bins] = plotter.XY{X: hi, Y: pts[bins-1].Y}
		out[s] = pts
	}
	return out
}

// Marginals draws the one-dimensional marginals of several sets of samples (rows are draws,
// columns parameters) overlaid, one panel per parameter: density histograms as step lines,
// one colour per set, and the true value when given; for comparing posteriors (estimators,
// budgets, a reference) parameter by parameter. Draws with a NaN or ±Inf value are left out,
// and the legend says how many. It panics, before anything is drawn, if the sets have
// different numbers of columns, a set holds no draw without NaN or ±Inf, Names, Labels or
// Truth have the wrong length, Truth is not finite, or Bins exceeds MaxHistogramBins (see the
// package doc on errors).
func Marginals(o MarginalsConfig, samples ...*mat.Dense) *Plot {
	if len(samples) == 0 {
		panic("viz: Marginals needs at least one set of samples")
	}
	if o.Bins > MaxHistogramBins {
		panic(fmt.Sprintf("viz: Marginals: Bins = %d histogram bins, more than MaxHistogramBins (%d); use fewer", o.Bins, MaxHistogramBins))
	}
	_, dim := samples[0].Dims()
	for s, m := range samples {
		if _, c := m.Dims(); c != dim {
			panic(fmt.Sprintf("viz: Marginals: sample set %d has %d columns, set 0 has %d", s, c, dim))
		}
	}
	cols, dropped := finiteSets("Marginals", samples)
	if o.Names == nil {
		for d := range dim {
			o.Names = append(o.Names, "θ"+subscript(d+1))
		}
	}
	if o.Labels == nil {
		for s := range samples {
			o.Labels = append(o.Labels, fmt.Sprintf("samples %d", s+1))
		}
	}
	if len(o.Names) != dim || len(o.Labels) != len(samples) || (o.Truth != nil && len(o.Truth) != dim) {
		panic(fmt.Sprintf("viz: Marginals: %d names, %d labels, %d true values for %d parameters and %d sets", len(o.Names), len(o.Labels), len(o.Truth), dim, len(samples)))
	}
	checkFinite("Marginals", "Truth", o.Truth, "value (nil for none)")
	o.Labels = withDropped(o.Labels, dropped)
	if o.Bins <= 0 {
		o.Bins = 40
	}
	lo, hi := cornerRanges(cols, CornerConfig{Truth: o.Truth})
	var plots []*plot.Plot
	for d := range dim {
		p := newPlot("", o.Names[d], "")
		if d == 0 {
			p.Y.Label.Text = "density"
		}
		top := 0.0
		for s, pts := range marginalCurves(cols, d, o.Bins, lo[d], hi[d]) {
			l, err := plotter.NewLine(pts)
			if err != nil {
				continue
			}
			l.StepStyle = plotter.PostStep
			l.Color, l.Width = Color(s), vg.Points(1.4)
			if len(samples) == 1 {
				l.FillColor = Translucent(Color(s), 0.3)
			}
			p.Add(l)
			for _, q := range pts {
				top = math.Max(top, q.Y)
			}
		}
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo[d], hi[d], 0, 1.08*top
		if o.Truth != nil {
			p.Add(vLine(o.Truth[d], 0, p.Y.Max))
		}
		p.X.Tick.Marker = niceTicks{n: 4, labels: true}
		p.Y.Tick.Marker = niceTicks{n: 4, labels: true}
		plots = append(plots, p)
	}
	legend := append([]string(nil), o.Labels...)
	if o.Truth != nil {
		legend = append(legend, "true parameters")
	}
	fig := row(plots, 6*cm, 5*cm, legend)
	// The legend: a strip under the panels.
	inner := fig.draw
	h := vg.Points(14)
	fig.Height += h
	fig.draw = func(c draw.Canvas) {
		body := c
		body.Min.Y += h
		inner(body)
		strip := c
		strip.Max.Y = c.Min.Y + h
		drawLegendStrip(strip, legend, o.Truth != nil)
	}
	return fig
}

// drawLegendStrip writes legend entries side by side in c: a line in the set's colour (the
// last one black when truth is set) and the name.
func drawLegendStrip(c draw.Canvas, names []string, truth bool) {
	st := textStyle(9)
	st.YAlign = draw.YCenter
	x := c.Min.X + vg.Points(30)
	y := (c.Min.Y + c.Max.Y) / 2
	for k, n := range names {
		ls := draw.LineStyle{Color: Color(k), Width: vg.Points(2)}
		if truth && k == len(names)-1 {
			ls = draw.LineStyle{Color: truthColor, Width: vg.Points(0.8)}
		}
		c.StrokeLine2(ls, x, y, x+vg.Points(16), y)
		c.FillText(st, vg.Point{X: x + vg.Points(20), Y: y}, n)
		x += vg.Points(30) + st.Width(n)
	}
}
