package viz

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gosbi/gosbi/internal/text"
)

// LogDensity is anything with a batched log density of 2-D points, such as an sbi.Posterior.
type LogDensity interface {
	LogProb(theta *mat.Dense) []float64
}

// DensityConfig configures Density2D. Lower and Upper are required; other zero fields take
// the defaults.
type DensityConfig struct {
	Lower, Upper []float64 // the box to draw: two values each (required)
	Points       int       // grid points per axis; default 100, at most MaxDensityPoints
	Names        []string  // axis names; default θ₁, θ₂
	Truth        []float64 // a point to mark, or nil
	Levels       []float64 // HPD masses of the contours; default 0.68 and 0.95
	Log          bool      // colour by log density (clipped 10 nats below the maximum) instead of density
	Title        string
}

// MaxDensityPoints is the most grid points per axis of Density2D (DensityConfig.Points): a
// grid of 1000 × 1000 points, a million evaluations of the density. Density2D refuses a larger
// grid before it allocates it.
const MaxDensityPoints = 1000

// Density2D evaluates a 2-D density on a grid over the box and draws it as a heat map with
// contours of its highest-density regions (68% and 95% of the grid mass by default). It returns
// an error, before the density is evaluated, if the box is not given or not finite, Points
// exceeds MaxDensityPoints, Names or Truth do not hold two values, Truth is not finite, or a
// level is not a mass in [0, 1]; and an error if the density is NaN or zero everywhere. A
// Truth outside the box is not drawn, and its legend entry says so.
func Density2D(f LogDensity, cfg DensityConfig) (*Plot, error) {
	if len(cfg.Lower) != 2 || len(cfg.Upper) != 2 || !(cfg.Upper[0] > cfg.Lower[0]) || !(cfg.Upper[1] > cfg.Lower[1]) {
		return nil, fmt.Errorf("viz: Density2D needs a box: Lower and Upper with 2 values each and Lower < Upper, got %v and %v", cfg.Lower, cfg.Upper)
	}
	for _, v := range append(cfg.Lower[:2:2], cfg.Upper...) {
		if math.IsInf(v, 0) {
			return nil, fmt.Errorf("viz: Density2D needs a finite box, got Lower %v and Upper %v", cfg.Lower, cfg.Upper)
		}
	}
	if cfg.Points <= 0 {
		cfg.Points = 100
	}
	if cfg.Points > MaxDensityPoints {
		return nil, fmt.Errorf("viz: Density2D: Points = %d grid points per axis, more than MaxDensityPoints (%d); use fewer", cfg.Points, MaxDensityPoints)
	}
	if cfg.Names == nil {
		cfg.Names = []string{"θ₁", "θ₂"}
	}
	if len(cfg.Names) != 2 {
		return nil, fmt.Errorf("viz: Density2D: Names has %d %s, expected 2 (one per axis) or nil", len(cfg.Names), text.Plural(len(cfg.Names), "value", "values"))
	}
	if cfg.Truth != nil && len(cfg.Truth) != 2 {
		return nil, fmt.Errorf("viz: Density2D: Truth has %d %s, expected a point of 2 or nil", len(cfg.Truth), text.Plural(len(cfg.Truth), "value", "values"))
	}
	for i, v := range cfg.Truth {
		if !isFinite(v) {
			return nil, fmt.Errorf("viz: Density2D: Truth[%d] = %v, expected a finite value (nil for none)", i, v)
		}
	}
	if cfg.Levels == nil {
		cfg.Levels = []float64{0.68, 0.95}
	}
	for k, m := range cfg.Levels {
		if !(m >= 0 && m <= 1) { // mass 0 is the empty region (a conformal region can be empty)
			return nil, fmt.Errorf("viz: Density2D: Levels[%d] = %v, expected an HPD mass in [0, 1] (0.95, not 95)", k, m)
		}
	}
	g := newGridZ(cfg.Points, cfg.Points, cfg.Lower[0], cfg.Upper[0], cfg.Lower[1], cfg.Upper[1])
	pts := mat.NewDense(cfg.Points*cfg.Points, 2, nil)
	for r := range cfg.Points {
		for c := range cfg.Points {
			pts.Set(r*cfg.Points+c, 0, g.X(c))
			pts.Set(r*cfg.Points+c, 1, g.Y(r))
		}
	}
	lp := f.LogProb(pts)
	if len(lp) != cfg.Points*cfg.Points {
		return nil, fmt.Errorf("viz: Density2D: LogProb returned %d values for %d points", len(lp), cfg.Points*cfg.Points)
	}
	top := math.Inf(-1)
	for i, v := range lp {
		if math.IsNaN(v) {
			return nil, fmt.Errorf("viz: Density2D: log density is NaN at (%g, %g)", pts.At(i, 0), pts.At(i, 1))
		}
		top = math.Max(top, v)
	}
	if math.IsInf(top, -1) {
		return nil, fmt.Errorf("viz: Density2D: the density is zero on the whole box %v–%v", cfg.Lower, cfg.Upper)
	}
	for i, v := range lp {
		g.z[i] = math.Exp(v - top)
	}
	levels := hpdThresholds(g.z, cfg.Levels)

	p := newPlot(cfg.Title, cfg.Names[0], cfg.Names[1])
	heat := g
	if cfg.Log {
		heat = &gridZ{nx: g.nx, ny: g.ny, x0: g.x0, dx: g.dx, y0: g.y0, dy: g.dy, z: make([]float64, len(lp))}
		for i, v := range lp {
			heat.z[i] = math.Max(v-top, -10)
		}
	}
	hm := plotter.NewHeatMap(heat, rampPalette{c: Color(0), n: 64})
	hm.Rasterized = true
	p.Add(hm)
	sorted := append([]float64(nil), levels...)
	sortFloats(sorted)
	ct := plotter.NewContour(g, sorted, nil)
	ct.Palette = nil
	ct.LineStyles = []draw.LineStyle{{Color: Color(1), Width: vg.Points(1)}, {Color: Color(1), Width: vg.Points(1.6)}}
	p.Add(orderedContour{ct})
	legend := []string{fmt.Sprintf("HPD %s", massList(cfg.Levels))}
	p.Legend.Add(legend[0], &plotter.Line{LineStyle: ct.LineStyles[1]})
	if cfg.Truth != nil {
		sc, _ := plotter.NewScatter(plotter.XYs{{X: cfg.Truth[0], Y: cfg.Truth[1]}})
		sc.Shape, sc.Color, sc.Radius = draw.CrossGlyph{}, truthColor, vg.Points(5)
		sc.GlyphStyle.Color = truthColor
		p.Add(sc)
		name := "true parameters" + outsideNote(cfg.Truth, cfg.Lower, cfg.Upper)
		p.Legend.Add(name, sc)
		legend = append(legend, name)
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = cfg.Lower[0], cfg.Upper[0], cfg.Lower[1], cfg.Upper[1]
	p.X.Tick.Marker = niceTicks{n: 6, labels: true}
	p.Y.Tick.Marker = niceTicks{n: 6, labels: true}
	return withSideLegend(p, legend, 11*cm, 10*cm), nil
}

// MustDensity2D is Density2D for notebook cells: it returns the result alone and panics with
// Density2D's error.
func MustDensity2D(f LogDensity, cfg DensityConfig) *Plot {
	return must(Density2D(f, cfg))
}

func massList(m []float64) string {
	s := ""
	for i, v := range m {
		if i > 0 {
			s += ", "
		}
		s += text.Percent(v)
	}
	return s
}

// outsideNote is the note a legend entry adds when the point it names lies outside the box
// [lower, upper], where the axes cut its marker off; "" when it lies inside.
func outsideNote(point, lower, upper []float64) string {
	for d, v := range point {
		if v < lower[d] || v > upper[d] {
			return " (outside the box, not drawn)"
		}
	}
	return ""
}
