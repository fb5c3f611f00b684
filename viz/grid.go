package viz

import (
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Grid lays plots out as small multiples, cols per row (for example tasks × methods), each in
// a tile as large as the largest plot. A nil plot leaves its tile empty. The legend of the grid
// lists the distinct legend entries of its plots.
func Grid(cols int, plots ...*Plot) *Plot {
	if cols <= 0 {
		cols = len(plots)
	}
	cols = max(1, min(cols, len(plots)))
	rows := (len(plots) + cols - 1) / cols
	var w, h vg.Length
	for _, p := range plots {
		if p != nil {
			w, h = max(w, p.Width), max(h, p.Height)
		}
	}
	legend := mergeLegends(plots)
	if w == 0 {
		w, h = 6*cm, 5*cm
	}
	return newFigure(w*vg.Length(max(cols, 1)), h*vg.Length(max(rows, 1)), legend, func(c draw.Canvas) {
		tiles := draw.Tiles{Rows: max(rows, 1), Cols: max(cols, 1)}
		for k, p := range plots {
			if p != nil {
				p.Draw(tiles.At(c, k%cols, k/cols))
			}
		}
	})
}

// Row places plots side by side, each at its own width, in a figure as tall as the tallest. A
// nil plot leaves an empty slot as wide as the widest plot, as Grid leaves an empty tile.
func Row(plots ...*Plot) *Plot {
	var widest, h vg.Length
	for _, p := range plots {
		if p != nil {
			widest, h = max(widest, p.Width), max(h, p.Height)
		}
	}
	if widest == 0 {
		widest, h = 6*cm, 5*cm
	}
	width := func(p *Plot) vg.Length {
		if p == nil {
			return widest
		}
		return p.Width
	}
	var w vg.Length
	for _, p := range plots {
		w += width(p)
	}
	legend := mergeLegends(plots)
	return newFigure(w, h, legend, func(c draw.Canvas) {
		x := c.Min.X
		for _, p := range plots {
			if p != nil {
				sub := c
				sub.Min.X, sub.Max.X = x, x+p.Width
				sub.Min.Y = c.Max.Y - p.Height
				p.Draw(sub)
			}
			x += width(p)
		}
	})
}

// mergeLegends lists the distinct legend entries of plots in order of appearance.
func mergeLegends(plots []*Plot) []string {
	var legend []string
	seen := map[string]bool{}
	for _, p := range plots {
		if p == nil {
			continue
		}
		for _, e := range p.legend {
			if !seen[e] {
				seen[e] = true
				legend = append(legend, e)
			}
		}
	}
	return legend
}
