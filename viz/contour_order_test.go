package viz

import (
	"bytes"
	"math"
	"reflect"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// bumps is a log density with three separate modes, so each HPD level is drawn as several
// contour paths.
type bumps struct{}

func (bumps) LogProb(theta *mat.Dense) []float64 {
	r, _ := theta.Dims()
	lp := make([]float64, r)
	for i := range r {
		x, y := theta.At(i, 0), theta.At(i, 1)
		s := 0.0
		for _, m := range [][2]float64{{-2, -2}, {2, -1}, {0, 2}} {
			dx, dy := x-m[0], y-m[1]
			s += math.Exp(-2 * (dx*dx + dy*dy))
		}
		lp[i] = math.Log(s)
	}
	return lp
}

// sameSVG draws the figure made by mk n times and reports whether every drawing gives the
// bytes of the first.
func sameSVG(t *testing.T, n int, mk func() *Plot) bool {
	t.Helper()
	var first []byte
	for i := range n {
		b, err := mk().SVG()
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = b
		} else if !bytes.Equal(b, first) {
			return false
		}
	}
	return true
}

// TestContourOrder checks that a figure with contours gives the same SVG bytes each time it
// is drawn: gonum's contour plotter collects its paths in a map, so their order alone would
// differ between drawings.
func TestContourOrder(t *testing.T) {
	density := func() *Plot {
		return MustDensity2D(bumps{}, DensityConfig{Lower: []float64{-4, -4}, Upper: []float64{4, 4}, Points: 60})
	}
	if !sameSVG(t, 20, density) {
		t.Errorf("Density2D: the same figure gives different SVG bytes")
	}
	a := mat.NewDense(6000, 2, nil)
	b := correlated(5, 6000, []float64{0, 0}, 0.5, 0)
	for i := range 6000 {
		a.Set(i, 0, b.At(i, 0)+3*float64(i%3-1))
		a.Set(i, 1, b.At(i, 1)+2*float64(i%2))
	}
	if !sameSVG(t, 20, func() *Plot { return Corner(a) }) {
		t.Errorf("Corner: the same figure gives different SVG bytes")
	}
}

// TestOrderedContourDrawsTheSame checks that orderedContour draws what gonum's Contour draws,
// stroke for stroke with each stroke's style, and keeps Contour's data range and glyph boxes.
func TestOrderedContourDrawsTheSame(t *testing.T) {
	g := newGridZ(60, 60, -4, 4, -4, 4)
	pts := mat.NewDense(60*60, 2, nil)
	for r := range 60 {
		for c := range 60 {
			pts.SetRow(r*60+c, []float64{g.X(c), g.Y(r)})
		}
	}
	for i, v := range (bumps{}).LogProb(pts) {
		g.z[i] = math.Exp(v)
	}
	ct := plotter.NewContour(g, []float64{0.2, 0.5, 0.8}, nil)
	ct.Palette = nil
	ct.LineStyles = []draw.LineStyle{
		{Color: Color(0), Width: vg.Points(1)},
		{Color: Color(1), Width: vg.Points(2), Dashes: []vg.Length{2, 1}},
	}
	oc := orderedContour{ct}
	plain, ordered := strokeCalls(ct), strokeCalls(oc)
	if len(plain) < 6 {
		t.Fatalf("the grid gives %d strokes, want several per level", len(plain))
	}
	slices.Sort(plain)
	slices.Sort(ordered)
	if !slices.Equal(plain, ordered) {
		t.Errorf("orderedContour strokes differ from Contour's")
	}

	var p plot.Plotter = oc
	dr, ok := p.(plot.DataRanger)
	if !ok {
		t.Fatal("orderedContour is not a plot.DataRanger")
	}
	x0, x1, y0, y1 := dr.DataRange()
	w0, w1, v0, v1 := ct.DataRange()
	if x0 != w0 || x1 != w1 || y0 != v0 || y1 != v1 {
		t.Errorf("DataRange = %g %g %g %g, Contour's is %g %g %g %g", x0, x1, y0, y1, w0, w1, v0, v1)
	}
	gb, ok := p.(plot.GlyphBoxer)
	if !ok {
		t.Fatal("orderedContour is not a plot.GlyphBoxer")
	}
	plt := plot.New()
	plt.X.Min, plt.X.Max, plt.Y.Min, plt.Y.Max = -4, 4, -4, 4
	if !reflect.DeepEqual(gb.GlyphBoxes(plt), ct.GlyphBoxes(plt)) {
		t.Errorf("GlyphBoxes differ from Contour's")
	}
}

// strokeCalls draws pl on a recording canvas and returns each stroke as one string: the
// style settings recorded before it followed by the stroke itself.
func strokeCalls(pl plot.Plotter) []string {
	plt := plot.New()
	plt.X.Min, plt.X.Max, plt.Y.Min, plt.Y.Max = -4, 4, -4, 4
	var rec recorder.Canvas
	pl.Plot(draw.Canvas{Canvas: &rec, Rectangle: vg.Rectangle{Max: vg.Point{X: 300, Y: 300}}}, plt)
	var out []string
	unit := ""
	for _, a := range rec.Actions {
		unit += a.Call() + ";"
		if _, ok := a.(*recorder.Stroke); ok {
			out = append(out, unit)
			unit = ""
		}
	}
	return out
}
