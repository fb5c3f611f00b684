package viz

import (
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// TestInlineSVGBounded: a figure whose SVG is larger than MaxInlineSVG (20,000 marks drawn)
// shows inline as PNG alone, with a text that says why; a small figure keeps its SVG.
func TestInlineSVGBounded(t *testing.T) {
	marks := func(n int) *Plot {
		return newFigure(4*vg.Inch, 3*vg.Inch, nil, func(c draw.Canvas) {
			c.SetColor(Palette[0])
			for i := range n {
				x := c.Min.X + vg.Length(i%997)*(c.Max.X-c.Min.X)/997
				y := c.Min.Y + vg.Length(i%991)*(c.Max.Y-c.Min.Y)/991
				var p vg.Path
				p.Move(vg.Point{X: x, Y: y})
				p.Line(vg.Point{X: x + 1, Y: y + 1})
				c.Stroke(p)
			}
		})
	}
	big := marks(20_000).MIMEBundle()
	if _, ok := big["image/svg+xml"]; ok {
		t.Errorf("the bundle of a figure of 20,000 marks holds its SVG (over MaxInlineSVG)")
	}
	if _, ok := big["image/png"]; !ok {
		t.Errorf("the bundle of a figure of 20,000 marks has no PNG")
	}
	if s, _ := big["text/plain"].(string); !strings.Contains(s, "MaxInlineSVG") {
		t.Errorf("its text %q does not say why the SVG is left out", s)
	}
	small := marks(10).MIMEBundle()
	if svg, _ := small["image/svg+xml"].(string); svg == "" {
		t.Errorf("a figure of 10 marks has no SVG in its bundle")
	}
}
