package viz

import (
	"cmp"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// orderedContour is a plotter.Contour that draws its paths in a fixed order. Contour gathers
// the paths of a level in a map, so it strokes them in an order that changes from one drawing
// to the next, and the same figure gives different SVG bytes. orderedContour records what
// Contour draws and replays it with each run of strokes of one line style (one level, in
// practice) sorted by their paths. Strokes of one style look the same in any order, so the
// figure is unchanged. DataRange and GlyphBoxes are Contour's.
type orderedContour struct {
	*plotter.Contour
}

// Plot implements plot.Plotter.
func (o orderedContour) Plot(c draw.Canvas, plt *plot.Plot) {
	var rec recorder.Canvas
	o.Contour.Plot(draw.Canvas{Canvas: &rec, Rectangle: c.Rectangle}, plt)
	for _, a := range orderStrokes(rec.Actions) {
		a.ApplyTo(c)
	}
}

// stroke is a recorded Stroke with the style settings recorded just before it.
type stroke struct {
	style []recorder.Action
	path  *recorder.Stroke
}

// orderStrokes returns actions with each run of strokes whose style settings are the same
// sorted by their paths. It returns actions as they are if they hold anything but strokes and
// style settings, since only those can be reordered without changing the drawing.
func orderStrokes(actions []recorder.Action) []recorder.Action {
	var strokes []stroke
	var style []recorder.Action
	for _, a := range actions {
		switch a := a.(type) {
		case *recorder.SetColor, *recorder.SetLineWidth, *recorder.SetLineDash:
			style = append(style, a)
		case *recorder.Stroke:
			strokes = append(strokes, stroke{style: style, path: a})
			style = nil
		default:
			return actions
		}
	}
	for i := 0; i < len(strokes); {
		j := i + 1
		for j < len(strokes) && sameStyle(strokes[i].style, strokes[j].style) {
			j++
		}
		slices.SortStableFunc(strokes[i:j], func(a, b stroke) int { return comparePaths(a.path, b.path) })
		i = j
	}
	out := make([]recorder.Action, 0, len(actions))
	for _, s := range strokes {
		out = append(out, s.style...)
		out = append(out, s.path)
	}
	return append(out, style...)
}

// sameStyle reports whether two lists of style settings set the same values.
func sameStyle(a, b []recorder.Action) bool {
	return slices.EqualFunc(a, b, func(x, y recorder.Action) bool { return x.Call() == y.Call() })
}

// comparePaths orders strokes by their first point, then their number of components, then
// the whole recorded call, so that any two different paths have an order.
func comparePaths(a, b *recorder.Stroke) int {
	if c := cmpPoint(first(a.Path), first(b.Path)); c != 0 {
		return c
	}
	if c := cmp.Compare(len(a.Path), len(b.Path)); c != 0 {
		return c
	}
	return cmp.Compare(a.Call(), b.Call())
}

// first returns the position of p's first component, or the origin for an empty path.
func first(p vg.Path) vg.Point {
	if len(p) == 0 {
		return vg.Point{}
	}
	return p[0].Pos
}

// cmpPoint orders points by X, then Y.
func cmpPoint(a, b vg.Point) int {
	if c := cmp.Compare(a.X, b.X); c != 0 {
		return c
	}
	return cmp.Compare(a.Y, b.Y)
}
