package viz

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gosbi/gosbi/internal/text"
)

// CornerConfig configures a corner plot. The zero value is usable.
type CornerConfig struct {
	Names  []string  // parameter names; default θ₁, θ₂, …
	Labels []string  // one legend label per sample set; default "samples i"
	Truth  []float64 // true parameter values, marked in every panel; nil for none
	Bins   int       // histogram bins on the diagonal; default 40, at most MaxHistogramBins
	Points int       // grid cells per axis of the 2-D densities (as DensityConfig.Points); default 50, at most MaxDensityPoints
	Smooth float64   // Gaussian smoothing of the 2-D histograms, in cells; default 1.5
	Levels []float64 // probability mass of the HPD contours; default 0.68 and 0.95
	Lower  []float64 // axis lower limits; default from the samples (0.5% quantile, padded)
	Upper  []float64 // axis upper limits; default from the samples (99.5% quantile, padded)
	Panel  vg.Length // size of one panel; default 4.2 cm
}

// MaxCornerParams is the most parameters CornerWith draws: a grid of 30 × 30 panels, about as
// many as a PNG of MaxPNGPixels holds at the default panel size and DPI.
const MaxCornerParams = 30

// MaxCornerCells is the most grid cells CornerWith allocates for the 2-D densities of its
// panels below the diagonal: Points² cells per panel and sample set, 25 million in all (200 MB
// of values). A larger figure is refused before any cell is allocated.
const MaxCornerCells = 25_000_000

// MaxHistogramBins is the most histogram bins of CornerWith (CornerConfig.Bins) and
// Marginals (MarginalsConfig.Bins): 1000, more than a panel is pixels wide at its default size
// and DPI. A larger Bins is refused, with the panic of their other bad options, before any bin
// is allocated.
const MaxHistogramBins = 1000

// Corner draws a corner (pair) plot of one or more sets of samples (rows are draws, columns
// parameters): 1-D histograms on the diagonal and smoothed 2-D densities below it with contours
// of the 68% and 95% highest-density regions. With several sets, each gets its own colour and
// contours only. Draws with a NaN or ±Inf value are left out, and the legend says how many.
func Corner(samples ...*mat.Dense) *Plot { return CornerWith(CornerConfig{}, samples...) }

// CornerWith is Corner with options: parameter names, legend labels, true parameters, binning,
// smoothing, contour levels and axis ranges. It panics, before anything is drawn, if the sets
// have different numbers of columns, a set holds no draw without NaN or ±Inf, there are more
// than MaxCornerParams parameters, Names, Labels, Truth, Lower or Upper have the wrong length,
// Truth, Lower, Upper or Smooth is not finite, an axis's lower limit is not below its upper
// one, a level is not an HPD mass in [0, 1], Points exceeds MaxDensityPoints, the panels'
// grids would hold more than MaxCornerCells cells, or Bins exceeds MaxHistogramBins (see the
// package doc on errors).
func CornerWith(cfg CornerConfig, samples ...*mat.Dense) *Plot {
	if len(samples) == 0 {
		panic("viz: Corner needs at least one set of samples")
	}
	_, dim := samples[0].Dims()
	for i, s := range samples {
		if _, c := s.Dims(); c != dim {
			panic(fmt.Sprintf("viz: Corner: sample set %d has %d columns, set 0 has %d", i, c, dim))
		}
	}
	if dim > MaxCornerParams {
		panic(fmt.Sprintf("viz: Corner: %d parameters, more than MaxCornerParams (%d); draw a subset of the columns", dim, MaxCornerParams))
	}
	cfg = cfg.withDefaults(dim, len(samples))
	pairs := dim * (dim - 1) / 2
	if cells := pairs * len(samples) * cfg.Points * cfg.Points; cells > MaxCornerCells {
		sets := ""
		if len(samples) > 1 {
			sets = fmt.Sprintf(" for %d sample sets", len(samples))
		}
		panic(fmt.Sprintf("viz: Corner: Points = %d grid cells per axis in each of %d panels%s is %d cells, more than MaxCornerCells (%d); use fewer Points, parameters or sets",
			cfg.Points, pairs, sets, cells, MaxCornerCells))
	}
	cols, dropped := finiteSets("Corner", samples)
	cfg.Labels = withDropped(cfg.Labels, dropped)
	lo, hi := cornerRanges(cols, cfg)
	for d := range dim {
		if !(lo[d] < hi[d]) {
			panic(fmt.Sprintf("viz: Corner: the axis of parameter %d runs from %v to %v; expected Lower below Upper", d, lo[d], hi[d]))
		}
	}

	plots := make([][]*plot.Plot, dim)
	for i := range dim {
		plots[i] = make([]*plot.Plot, dim)
		for j := 0; j <= i; j++ {
			var p *plot.Plot
			if i == j {
				p = cornerDiagonal(cols, i, lo[i], hi[i], cfg)
			} else {
				p = cornerPair(cols, j, i, lo, hi, cfg)
			}
			cornerAxes(p, i, j, dim, cfg)
			plots[i][j] = p
		}
	}
	panel := cfg.Panel
	size := panel*vg.Length(dim) + vg.Points(30)
	legend := []string(nil)
	if len(samples) > 1 || cfg.Labels[0] != "" {
		legend = cfg.Labels
	}
	if cfg.Truth != nil {
		legend = append(legend, "true parameters")
	}
	// With one parameter there is no empty upper-right panel: the legend gets a strip to
	// the right of the single panel instead.
	var legW vg.Length
	if dim == 1 && len(legend) > 0 {
		legW = cornerLegendWidth(legend)
	}
	return newFigure(size+legW, size, legend, func(c draw.Canvas) {
		tiles := draw.Tiles{Rows: dim, Cols: dim, PadX: vg.Points(4), PadY: vg.Points(4),
			PadTop: vg.Points(4), PadRight: vg.Points(6)}
		panels := c
		panels.Max.X -= legW
		canvases := plot.Align(plots, tiles, panels)
		for i := range dim {
			for j := 0; j <= i; j++ {
				plots[i][j].Draw(canvases[i][j])
			}
		}
		switch {
		case len(legend) == 0:
		case dim == 1:
			strip := c
			strip.Min.X = panels.Max.X
			strip.Max.Y -= vg.Points(4)
			drawCornerLegend(strip, legend, cfg.Truth != nil)
		default:
			drawCornerLegend(canvases[0][dim-1], legend, cfg.Truth != nil)
		}
	})
}

// cornerLegendWidth is the width drawCornerLegend needs for names.
func cornerLegendWidth(names []string) vg.Length {
	st := textStyle(9)
	var w vg.Length
	for _, n := range names {
		w = max(w, st.Width(n))
	}
	return vg.Points(16) + st.Width(" ") + w + vg.Points(10)
}

func (cfg CornerConfig) withDefaults(dim, sets int) CornerConfig {
	if cfg.Names == nil {
		cfg.Names = make([]string, dim)
		for d := range cfg.Names {
			cfg.Names[d] = fmt.Sprintf("θ%s", subscript(d+1))
		}
	}
	if len(cfg.Names) != dim {
		panic(fmt.Sprintf("viz: Corner: %d names for %d parameters", len(cfg.Names), dim))
	}
	if cfg.Truth != nil && len(cfg.Truth) != dim {
		panic(fmt.Sprintf("viz: Corner: Truth has %d values for %d parameters", len(cfg.Truth), dim))
	}
	if cfg.Lower != nil && len(cfg.Lower) != dim || cfg.Upper != nil && len(cfg.Upper) != dim {
		panic(fmt.Sprintf("viz: Corner: Lower and Upper need %d values, got %d and %d", dim, len(cfg.Lower), len(cfg.Upper)))
	}
	checkFinite("Corner", "Truth", cfg.Truth, "value (nil for none)")
	checkFinite("Corner", "Lower", cfg.Lower, "axis limit (nil for limits from the samples)")
	checkFinite("Corner", "Upper", cfg.Upper, "axis limit (nil for limits from the samples)")
	for k, m := range cfg.Levels {
		if !(m >= 0 && m <= 1) {
			panic(fmt.Sprintf("viz: Corner: Levels[%d] = %v, expected an HPD mass in [0, 1] (0.95, not 95)", k, m))
		}
	}
	if math.IsNaN(cfg.Smooth) || math.IsInf(cfg.Smooth, 0) {
		panic(fmt.Sprintf("viz: Corner: Smooth = %v, expected a finite width in cells (0 for the default)", cfg.Smooth))
	}
	if cfg.Labels == nil {
		cfg.Labels = make([]string, sets)
		if sets > 1 {
			for s := range cfg.Labels {
				cfg.Labels[s] = fmt.Sprintf("samples %d", s+1)
			}
		}
	}
	if len(cfg.Labels) != sets {
		panic(fmt.Sprintf("viz: Corner: %d labels for %d sample sets", len(cfg.Labels), sets))
	}
	if cfg.Bins > MaxHistogramBins {
		panic(fmt.Sprintf("viz: Corner: Bins = %d histogram bins, more than MaxHistogramBins (%d); use fewer", cfg.Bins, MaxHistogramBins))
	}
	if cfg.Bins <= 0 {
		cfg.Bins = 40
	}
	if cfg.Points > MaxDensityPoints {
		panic(fmt.Sprintf("viz: Corner: Points = %d grid cells per axis, more than MaxDensityPoints (%d); use fewer", cfg.Points, MaxDensityPoints))
	}
	if cfg.Points <= 0 {
		cfg.Points = 50
	}
	if cfg.Smooth == 0 {
		cfg.Smooth = 1.5
	}
	if cfg.Levels == nil {
		cfg.Levels = []float64{0.68, 0.95}
	}
	if cfg.Panel <= 0 {
		cfg.Panel = 4.2 * cm
	}
	return cfg
}

// checkFinite panics with the message of fn's bad options when the option field holds a NaN
// or infinite value, saying what a value of it is.
func checkFinite(fn, field string, v []float64, what string) {
	for i, a := range v {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			panic(fmt.Sprintf("viz: %s: %s[%d] = %v, expected a finite %s", fn, field, i, a, what))
		}
	}
}

func subscript(n int) string {
	s := ""
	for _, r := range fmt.Sprint(n) {
		s += string('₀' + (r - '0'))
	}
	return s
}

// cornerRanges is the union over sets of the 0.5%–99.5% quantile range, padded by 5% and
// widened to include the truth, unless the options fix the limits.
func cornerRanges(cols [][][]float64, cfg CornerConfig) (lo, hi []float64) {
	dim := len(cols[0])
	lo, hi = make([]float64, dim), make([]float64, dim)
	for d := range dim {
		lo[d], hi[d] = math.Inf(1), math.Inf(-1)
		for s := range cols {
			v := finiteSorted(cols[s][d])
			if len(v) == 0 {
				continue
			}
			lo[d] = math.Min(lo[d], v[int(0.005*float64(len(v)-1))])
			hi[d] = math.Max(hi[d], v[int(math.Ceil(0.995*float64(len(v)-1)))])
		}
		if cfg.Truth != nil {
			lo[d], hi[d] = math.Min(lo[d], cfg.Truth[d]), math.Max(hi[d], cfg.Truth[d])
		}
		if math.IsInf(lo[d], 1) { // no finite value at all
			lo[d], hi[d] = -1, 1
		}
		pad := 0.05 * (hi[d] - lo[d])
		if pad == 0 {
			pad = 0.5
		}
		lo[d], hi[d] = lo[d]-pad, hi[d]+pad
		if cfg.Lower != nil {
			lo[d] = cfg.Lower[d]
		}
		if cfg.Upper != nil {
			hi[d] = cfg.Upper[d]
		}
	}
	return lo, hi
}

func cornerDiagonal(cols [][][]float64, d int, lo, hi float64, cfg CornerConfig) *plot.Plot {
	p := newPlot("", "", "")
	width := (hi - lo) / float64(cfg.Bins)
	ymax := 0.0
	for s := range cols {
		counts := make([]float64, cfg.Bins)
		n := 0
		for _, v := range cols[s][d] {
			if k := int(math.Floor((v - lo) / width)); k >= 0 && k < cfg.Bins {
				counts[k]++
			}
			n++
		}
		pts := make(plotter.XYs, cfg.Bins+1)
		for k := range cfg.Bins {
			pts[k] = plotter.XY{X: lo + float64(k)*width, Y: counts[k] / (float64(n) * width)}
			ymax = math.Max(ymax, pts[k].Y)
		}
		pts[cfg.Bins] = plotter.XY{X: hi, Y: pts[cfg.Bins-1].Y}
		line, err := plotter.NewLine(pts)
		if err != nil {
			continue
		}
		line.StepStyle = plotter.PostStep
		line.Color = Color(s)
		line.Width = vg.Points(1.2)
		if len(cols) == 1 {
			line.FillColor = Translucent(Color(s), 0.3)
		}
		p.Add(line)
	}
	p.Y.Min, p.Y.Max = 0, 1.08*ymax
	if cfg.Truth != nil {
		p.Add(vLine(cfg.Truth[d], 0, p.Y.Max))
	}
	return p
}

func cornerPair(cols [][][]float64, dx, dy int, lo, hi []float64, cfg CornerConfig) *plot.Plot {
	p := newPlot("", "", "")
	for s := range cols {
		g := newGridZ(cfg.Points, cfg.Points, lo[dx], hi[dx], lo[dy], hi[dy])
		g.histogram2D(cols[s][dx], cols[s][dy])
		g.smooth(cfg.Smooth)
		levels := hpdThresholds(g.z, cfg.Levels) // decreasing in mass order given
		if len(cols) == 1 {
			hm := plotter.NewHeatMap(g, rampPalette{c: Color(0), n: 64})
			hm.Rasterized = true
			hm.Max = maxOf(g.z)
			hm.Min = 0.01 * hm.Max
			hm.Underflow = color.Transparent
			p.Add(hm)
		}
		sorted := append([]float64(nil), levels...)
		sort.Float64s(sorted)
		ct := plotter.NewContour(g, sorted, nil)
		ct.Palette = nil
		col := Color(s)
		if len(cols) == 1 {
			col = color.NRGBA{0x00, 0x3B, 0x5C, 0xFF}
		}
		ct.LineStyles = make([]draw.LineStyle, len(sorted))
		for k := range sorted {
			// Wider lines for the inner (denser) region.
			ct.LineStyles[k] = draw.LineStyle{Color: col, Width: vg.Points(0.8 + 0.6*float64(k)/math.Max(1, float64(len(sorted)-1)))}
		}
		p.Add(orderedContour{ct})
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo[dx], hi[dx], lo[dy], hi[dy]
	if cfg.Truth != nil {
		p.Add(vLine(cfg.Truth[dx], lo[dy], hi[dy]), hLine(cfg.Truth[dy], lo[dx], hi[dx]))
		sc, _ := plotter.NewScatter(plotter.XYs{{X: cfg.Truth[dx], Y: cfg.Truth[dy]}})
		sc.Shape = draw.BoxGlyph{}
		sc.Color = truthColor
		sc.Radius = vg.Points(2.5)
		p.Add(sc)
	}
	return p
}

var truthColor = color.NRGBA{0x20, 0x20, 0x20, 0xFF}

func vLine(x, y0, y1 float64) *plotter.Line {
	l, _ := plotter.NewLine(plotter.XYs{{X: x, Y: y0}, {X: x, Y: y1}})
	l.Color = truthColor
	l.Width = vg.Points(0.8)
	return l
}

func hLine(y, x0, x1 float64) *plotter.Line {
	l, _ := plotter.NewLine(plotter.XYs{{X: x0, Y: y}, {X: x1, Y: y}})
	l.Color = truthColor
	l.Width = vg.Points(0.8)
	return l
}

func maxOf(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = math.Max(m, x)
	}
	return m
}

// cornerAxes shows tick labels and names only on the outer panels, and hides the density axis
// of the diagonal panels.
func cornerAxes(p *plot.Plot, i, j, dim int, cfg CornerConfig) {
	if i == dim-1 {
		p.X.Label.Text = cfg.Names[j]
		p.X.Tick.Marker = niceTicks{n: 5, labels: true}
	} else {
		p.X.Tick.Marker = niceTicks{n: 5}
	}
	switch {
	case i == j:
		p.HideY()
	case j == 0:
		p.Y.Label.Text = cfg.Names[i]
		p.Y.Tick.Marker = niceTicks{n: 5, labels: true}
	default:
		p.Y.Tick.Marker = niceTicks{n: 5}
	}
}

// drawCornerLegend writes the legend into the top right corner of c: the empty upper-right
// panel, or the strip beside a single panel.
func drawCornerLegend(c draw.Canvas, names []string, truth bool) {
	leg := plot.NewLegend()
	leg.TextStyle = textStyle(9)
	leg.Top, leg.Left = true, false
	leg.Padding = vg.Points(2)
	leg.ThumbnailWidth = vg.Points(16)
	for k, n := range names {
		if truth && k == len(names)-1 {
			l := hLine(0, 0, 1)
			leg.Add(n, l)
			continue
		}
		l := hLine(0, 0, 1)
		l.Color = Color(k)
		l.Width = vg.Points(2)
		leg.Add(n, l)
	}
	leg.Draw(c)
}

// finiteColumns returns the columns of the draws (rows) of m whose values are all finite, and
// the number of draws left out.
func finiteColumns(m *mat.Dense) (cols [][]float64, dropped int) {
	r, c := m.Dims()
	cols = make([][]float64, c)
	for i := range r {
		row := m.RawRowView(i)
		if slices.ContainsFunc(row, func(v float64) bool { return !isFinite(v) }) {
			dropped++
			continue
		}
		for j, v := range row {
			cols[j] = append(cols[j], v)
		}
	}
	return cols, dropped
}

// finiteSets returns the finite draws of each set as columns (set → parameter → values) and
// the draws left out of each; it panics, with the message of fn's bad options, on a set
// without draws or without one finite draw.
func finiteSets(fn string, samples []*mat.Dense) (cols [][][]float64, dropped []int) {
	cols, dropped = make([][][]float64, len(samples)), make([]int, len(samples))
	for s, m := range samples {
		r, _ := m.Dims()
		if m.IsEmpty() || r == 0 {
			panic(fmt.Sprintf("viz: %s: sample set %d holds no draws", fn, s))
		}
		cols[s], dropped[s] = finiteColumns(m)
		if dropped[s] == r {
			panic(fmt.Sprintf("viz: %s: sample set %d holds no draw without NaN or ±Inf (of %d)", fn, s, r))
		}
	}
	return cols, dropped
}

// withDropped returns a copy of labels in which the label of each set with draws left out
// says how many (the note alone for an empty label).
func withDropped(labels []string, dropped []int) []string {
	out := slices.Clone(labels)
	for s, n := range dropped {
		if n == 0 {
			continue
		}
		note := fmt.Sprintf("%d %s with NaN or ±Inf left out", n, text.Plural(n, "draw", "draws"))
		if out[s] == "" {
			out[s] = note
		} else {
			out[s] += " (" + note + ")"
		}
	}
	return out
}

// finiteSorted returns the finite values of v, sorted.
func finiteSorted(v []float64) []float64 {
	out := make([]float64, 0, len(v))
	for _, x := range v {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out = append(out, x)
		}
	}
	sort.Float64s(out)
	return out
}
