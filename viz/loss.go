package viz

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/gosbi/gosbi/display"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// LossCurves plots training and validation loss against epoch; val may be nil. The epoch of
// the lowest validation loss is marked.
func LossCurves(train, val []float64) *Plot {
	p := newPlot("", "epoch", "loss")
	var legend []string
	add := func(v []float64, i int, name string) {
		pts := make(plotter.XYs, 0, len(v))
		for e, y := range v {
			if !math.IsNaN(y) && !math.IsInf(y, 0) {
				pts = append(pts, plotter.XY{X: float64(e + 1), Y: y})
			}
		}
		if len(pts) == 0 {
			return
		}
		l, _ := plotter.NewLine(pts)
		l.Color, l.Width = Color(i), vg.Points(1.6)
		p.Add(l)
		p.Legend.Add(name, l)
		legend = append(legend, name)
	}
	add(train, 0, "training")
	add(val, 1, "validation")
	if best, at := minIndex(val); at >= 0 {
		sc, _ := plotter.NewScatter(plotter.XYs{{X: float64(at + 1), Y: best}})
		sc.Shape, sc.Color, sc.Radius = draw.CircleGlyph{}, Color(1), vg.Points(3.5)
		name := fmt.Sprintf("best: %.4g (epoch %d)", best, at+1)
		p.Add(sc)
		p.Legend.Add(name, sc)
		legend = append(legend, name)
	}
	if len(train) <= 1 && len(val) <= 1 {
		p.X.Min, p.X.Max = 0, 2
	}
	padY(p)
	p.X.Tick.Marker = niceTicks{n: 6, labels: true}
	p.Y.Tick.Marker = niceTicks{n: 6, labels: true}
	return withSideLegend(p, legend, 12*cm, 8*cm)
}

// minIndex returns the lowest finite value of v and its index, or −1 when v holds none: the
// lowest point LossCurves draws (it leaves out NaN and ±Inf).
func minIndex(v []float64) (float64, int) {
	best, at := math.Inf(1), -1
	for i, x := range v {
		if x < best && !math.IsInf(x, -1) {
			best, at = x, i
		}
	}
	return best, at
}

// Loss records training curves and redraws itself while training runs: show it once in a
// cell, then call Add after every epoch; the notebook display (package display) is replaced
// in place, at most every UpdateInterval, and always on Finish.
type Loss struct {
	mu         sync.Mutex
	train, val []float64
	d          *display.Display
	last       time.Time
}

// UpdateInterval is the shortest time between two live redraws of a Loss.
const UpdateInterval = 500 * time.Millisecond

// NewLoss returns an empty live loss plot; it is displayed at the first Add.
func NewLoss() *Loss { return &Loss{d: display.New()} }

// Add appends one epoch; pass math.NaN() for a missing validation loss.
func (l *Loss) Add(train, val float64) {
	l.mu.Lock()
	l.train = append(l.train, train)
	l.val = append(l.val, val)
	due := time.Since(l.last) >= UpdateInterval
	if due {
		l.last = time.Now()
	}
	l.mu.Unlock()
	if due {
		l.push()
	}
}

// Show displays the curves recorded so far (or replaces the display made by an earlier Show
// or Add).
func (l *Loss) Show() { l.push() }

// Finish redraws the display with every epoch recorded.
func (l *Loss) Finish() { l.push() }

func (l *Loss) push() { l.d.UpdateBundle(l) }

// DisplayID identifies the display that live updates replace.
func (l *Loss) DisplayID() string { return l.d.ID() }

// Epochs is the number of epochs recorded.
func (l *Loss) Epochs() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.train)
}

// Plot draws the curves recorded so far.
func (l *Loss) Plot() *Plot {
	l.mu.Lock()
	train := append([]float64(nil), l.train...)
	val := append([]float64(nil), l.val...)
	l.mu.Unlock()
	return LossCurves(train, val)
}

// MIMEBundle renders the curves recorded so far.
func (l *Loss) MIMEBundle() map[string]any { return l.Plot().MIMEBundle() }
