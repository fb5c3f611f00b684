package viz

import (
	"strings"
	"testing"

	xfont "golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// glyphInk is the horizontal extent of the ink of one drawn glyph.
type glyphInk struct {
	r        rune
	min, max vg.Length
}

// drawnInk draws label with st at the origin and returns the ink extents of its glyphs, in the
// order drawn, from the font's glyph bounds at the place of each glyph in each drawn string.
func drawnInk(t *testing.T, st draw.TextStyle, label string) []glyphInk {
	t.Helper()
	var rec recorder.Canvas
	c := draw.NewCanvas(&rec, 100, 100)
	c.FillText(st, vg.Point{}, label)
	var (
		ink []glyphInk
		buf sfnt.Buffer
	)
	for _, a := range rec.Actions {
		fs, ok := a.(*recorder.FillString)
		if !ok {
			continue
		}
		face := font.DefaultCache.Lookup(fs.Font, fs.Size)
		ppem := fixed.Int26_6(face.Face.UnitsPerEm())
		scale := func(v fixed.Int26_6) vg.Length { return vg.Length(v) * fs.Size / vg.Length(ppem) }
		var drawn []rune
		for _, r := range fs.String {
			drawn = append(drawn, r)
			idx, err := face.Face.GlyphIndex(&buf, r)
			if err != nil {
				t.Fatal(err)
			}
			b, adv, err := face.Face.GlyphBounds(&buf, idx, ppem, xfont.HintingNone)
			if err != nil {
				t.Fatal(err)
			}
			x := fs.Point.X + face.Width(string(drawn)) - scale(adv) // where the glyph starts
			ink = append(ink, glyphInk{r, x + scale(b.Min.X), x + scale(b.Max.X)})
		}
	}
	return ink
}

// TestSubscriptDigitsSitTight: the subscript digits ₀–₉ of Liberation Sans, which viz writes in
// parameter and data names, advance by the full width of a normal digit while their ink is
// small, so that "θ₁₀" was drawn spaced out as "θ₁ ₀". viz text draws them as small normal
// digits: the two digits of a subscript sit as close as those of "10", and the label is
// measured as it is drawn.
func TestSubscriptDigitsSitTight(t *testing.T) {
	st := textStyle(10)
	plain := st
	plain.Handler = plot.DefaultTextHandler
	if got, most := st.Width("x₁₀"), plain.Width("x")+2*0.75*plain.Width("₀"); got > most {
		t.Errorf("x₁₀ measures %.2f pt, want at most %.2f: subscript digits narrower than 3/4 of a digit", got, most)
	}
	gap := func(label string, i int) vg.Length {
		ink := drawnInk(t, st, label)
		if len(ink) <= i+1 {
			t.Fatalf("%q drawn as %d glyphs", label, len(ink))
		}
		return ink[i+1].min - ink[i].max
	}
	if sub, normal := gap("θ₁₀", 1), gap("10", 0); sub > normal {
		t.Errorf("θ₁₀: %.2f pt between the ink of its subscript digits, more than the %.2f pt between those of 10", sub, normal)
	}
	// drawn right-aligned at x = 50, the label ends there
	right := st
	right.XAlign = draw.XRight
	var rec recorder.Canvas
	c := draw.NewCanvas(&rec, 100, 100)
	c.FillText(right, vg.Point{X: 50}, "θ₁₀ and x₁₂")
	var end vg.Length
	for _, a := range rec.Actions {
		if fs, ok := a.(*recorder.FillString); ok {
			face := font.DefaultCache.Lookup(fs.Font, fs.Size)
			end = max(end, fs.Point.X+face.Width(fs.String))
		}
	}
	if d := end - 50; d < -1e-9 || d > 1e-9 {
		t.Errorf("right-aligned label ends %.3g pt off its anchor: measured and drawn widths differ", d)
	}
}

// TestVizTextUsesSubscriptDigits: every text viz draws, from titles to legends, goes through
// the handler that draws subscript digits as small normal digits; no drawn string holds a
// subscript glyph.
func TestVizTextUsesSubscriptDigits(t *testing.T) {
	p := newPlot("θ₁₀ panel", "x₁₀", "y₁₀")
	l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	if err != nil {
		t.Fatal(err)
	}
	p.Add(l)
	p.Legend.Add("z₁₀", l)
	p.X.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0.5, Label: "t₁₀"}})
	fig := fromGonum(p, 10*cm, 8*cm, nil)
	fig.Title = "figure θ₁₀"
	var rec recorder.Canvas
	c := draw.NewCanvas(&rec, fig.Width, fig.Height)
	fig.Draw(c)
	drawCornerLegend(c, []string{"w₁₀"}, false)
	drawn := 0
	for _, a := range rec.Actions {
		if fs, ok := a.(*recorder.FillString); ok {
			drawn++
			if strings.ContainsAny(fs.String, "₀₁₂₃₄₅₆₇₈₉") {
				t.Errorf("drawn string %q holds subscript glyphs", fs.String)
			}
		}
	}
	if drawn == 0 {
		t.Fatal("no text drawn")
	}
}
