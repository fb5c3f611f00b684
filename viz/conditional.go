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

// ConditionalConfig configures ConditionalPairs. At, Lower and Upper are required.
type ConditionalConfig struct {
	At           []float64 // the point whose other coordinates each slice keeps fixed
	Lower, Upper []float64 // the box drawn
	Points       int       // grid points per axis; default 50, at most MaxDensityPoints
	Names        []string  // parameter names; default θ₁, θ₂, …
}

// MaxConditionalParams is the most parameters ConditionalPairs draws (a D×D grid of panels).
const MaxConditionalParams = 8

// conditionalData holds what ConditionalPairs draws: per parameter d the grid xs[d] and the
// conditional density line[d] of θ_d with the others at At, normalized to integrate to 1 on
// the grid; per pair i > j the slice of the density over (θ_j, θ_i), divided by its maximum.
type conditionalData struct {
	xs, line [][]float64
	slice    [][]*gridZ // slice[i][j], i > j
}

func conditionalLayers(f LogDensity, o ConditionalConfig) (*conditionalData, error) {
	D := len(o.At)
	c := &conditionalData{xs: make([][]float64, D), line: make([][]float64, D), slice: make([][]*gridZ, D)}
	P := o.Points
	eval := func(pts *mat.Dense, what string) ([]float64, error) {
		lp := f.LogProb(pts)
		n, _ := pts.Dims()
		if len(lp) != n {
			return nil, fmt.Errorf("viz: ConditionalPairs: LogProb returned %d values for %d points", len(lp), n)
		}
		top := math.Inf(-1)
		for i, v := range lp {
			if math.IsNaN(v) {
				return nil, fmt.Errorf("viz: ConditionalPairs: log density is NaN at %v", pts.RawRowView(i))
			}
			top = math.Max(top, v)
		}
		if math.IsInf(top, -1) {
			return nil, fmt.Errorf("viz: ConditionalPairs: the density is zero on the whole %s through %v", what, o.At)
		}
		for i, v := range lp {
			lp[i] = math.Exp(v - top)
		}
		return lp, nil
	}
	for d := range D {
		w := (o.Upper[d] - o.Lower[d]) / float64(P)
		pts := mat.NewDense(P, D, nil)
		c.xs[d] = make([]float64, P)
		for k := range P {
			row := pts.RawRowView(k)
			copy(row, o.At)
			c.xs[d][k] = o.Lower[d] + (float64(k)+0.5)*w
			row[d] = c.xs[d][k]
		}
		v, err := eval(pts, fmt.Sprintf("line of %s", o.Names[d]))
		if err != nil {
			return nil, err
		}
		var s float64
		for _, x := range v {
			s += x * w
		}
		for k := range v {
			v[k] /= s
		}
		c.line[d] = v
		c.slice[d] = make([]*gridZ, D)
		for j := range d {
			g := newGridZ(P, P, o.Lower[j], o.Upper[j], o.Lower[d], o.Upper[d])
			pts := mat.NewDense(P*P, D, nil)
			for r := range P {
				for q := range P {
					row := pts.RawRowView(r*P + q)
					copy(row, o.At)
					row[j], row[d] = g.X(q), g.Y(r)
				}
			}
			v, err := eval(pts, fmt.Sprintf("plane of %s and %s", o.Names[j], o.Names[d]))
			if err != nil {
				return nil, err
			}
			g.z = v
			c.slice[d][j] = g
		}
	}
	return c, nil
}

// ConditionalPairs draws the conditional pair plot of a density (sbi's conditional_pairplot):
// below the diagonal, the 2-D slice of the density over each pair of parameters with all other
// parameters fixed at At, as a heat map scaled to its maximum; on the diagonal, the 1-D
// conditional density of each parameter with the others at At. Unlike a corner plot of
// samples, which shows marginals, it shows how the parameters trade off at one point, which
// reveals correlations that marginals hide. At is marked in every panel; when it lies outside
// the box its mark is cut off, and the legend says so. It returns an error for a missing,
// empty or infinite box, an At that is not finite, more than MaxConditionalParams parameters,
// more than MaxDensityPoints grid points per axis, or a density that is NaN or zero on a whole
// slice.
func ConditionalPairs(f LogDensity, o ConditionalConfig) (*Plot, error) {
	D := len(o.At)
	if D == 0 || len(o.Lower) != D || len(o.Upper) != D {
		return nil, fmt.Errorf("viz: ConditionalPairs needs At, Lower and Upper of one length, got %d, %d, %d", D, len(o.Lower), len(o.Upper))
	}
	if D > MaxConditionalParams {
		return nil, fmt.Errorf("viz: ConditionalPairs draws at most %d parameters, got %d", MaxConditionalParams, D)
	}
	for d := range D {
		if !(o.Upper[d] > o.Lower[d]) {
			return nil, fmt.Errorf("viz: ConditionalPairs: the box of parameter %d is [%v, %v], expected Lower < Upper", d, o.Lower[d], o.Upper[d])
		}
		if !isFinite(o.Lower[d]) || !isFinite(o.Upper[d]) {
			return nil, fmt.Errorf("viz: ConditionalPairs: the box of parameter %d is [%v, %v], expected a finite box", d, o.Lower[d], o.Upper[d])
		}
		if !isFinite(o.At[d]) {
			return nil, fmt.Errorf("viz: ConditionalPairs: At[%d] = %v, expected a finite value", d, o.At[d])
		}
	}
	if o.Points <= 0 {
		o.Points = 50
	}
	if o.Points > MaxDensityPoints {
		return nil, fmt.Errorf("viz: ConditionalPairs: Points = %d grid points per axis, more than MaxDensityPoints (%d); use fewer", o.Points, MaxDensityPoints)
	}
	if o.Names == nil {
		for d := range D {
			o.Names = append(o.Names, "θ"+subscript(d+1))
		}
	}
	if len(o.Names) != D {
		return nil, fmt.Errorf("viz: ConditionalPairs: %d names for %d parameters", len(o.Names), D)
	}
	c, err := conditionalLayers(f, o)
	if err != nil {
		return nil, err
	}
	grid := make([][]*plot.Plot, D)
	for i := range D {
		grid[i] = make([]*plot.Plot, D)
		for j := 0; j <= i; j++ {
			p := newPlot("", "", "")
			if i == j {
				pts := make(plotter.XYs, len(c.xs[i]))
				for k := range pts {
					pts[k] = plotter.XY{X: c.xs[i][k], Y: c.line[i][k]}
				}
				l, _ := plotter.NewLine(pts)
				l.Color, l.Width = Color(0), vg.Points(1.5)
				l.FillColor = Translucent(Color(0), 0.25)
				p.Add(l, vLine(o.At[i], 0, 1.08*maxOf(c.line[i])))
				p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = o.Lower[i], o.Upper[i], 0, 1.08*maxOf(c.line[i])
			} else {
				hm := plotter.NewHeatMap(c.slice[i][j], rampPalette{c: Color(0), n: 64})
				hm.Rasterized = true
				p.Add(hm)
				sc, _ := plotter.NewScatter(plotter.XYs{{X: o.At[j], Y: o.At[i]}})
				sc.Shape, sc.Color, sc.Radius = draw.CrossGlyph{}, Color(1), vg.Points(4)
				p.Add(sc)
				p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = o.Lower[j], o.Upper[j], o.Lower[i], o.Upper[i]
			}
			cornerAxes(p, i, j, D, CornerConfig{Names: o.Names})
			grid[i][j] = p
		}
	}
	size := 4*cm*vg.Length(D) + vg.Points(30)
	legend := []string{"conditional density, others fixed", "the point held fixed" + outsideNote(o.At, o.Lower, o.Upper)}
	return newFigure(size, size, legend, func(cv draw.Canvas) {
		tiles := draw.Tiles{Rows: D, Cols: D, PadX: vg.Points(4), PadY: vg.Points(4), PadTop: vg.Points(2), PadRight: vg.Points(4)}
		cs := plot.Align(grid, tiles, cv)
		for i := range D {
			for j := 0; j <= i; j++ {
				grid[i][j].Draw(cs[i][j])
			}
		}
	}), nil
}
