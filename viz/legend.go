package viz

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// withSideLegend wraps p in a figure of plot area w×h with p's legend drawn in a column to the
// right of the axes, where it cannot hide data. It returns the figure width too.
func withSideLegend(p *plot.Plot, names []string, w, h vg.Length) *Plot {
	leg := p.Legend
	p.Legend = plot.Legend{TextStyle: leg.TextStyle}
	var textW vg.Length
	for _, n := range names {
		textW = max(textW, leg.TextStyle.Width(n))
	}
	legW := leg.ThumbnailWidth + leg.TextStyle.Width(" ") + textW + vg.Points(10)
	if len(names) == 0 {
		legW = 0
	}
	leg.Top, leg.Left = true, true
	leg.Padding = vg.Points(2)
	leg.XOffs, leg.YOffs = vg.Points(4), -vg.Points(8)
	fig := newFigure(w+legW, h, names, func(c draw.Canvas) {
		plotArea := c
		plotArea.Max.X -= legW
		p.Draw(plotArea)
		if legW > 0 {
			legArea := c
			legArea.Min.X = plotArea.Max.X
			leg.Draw(legArea)
		}
	})
	return fig
}
