package viz

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gosbi/gosbi/internal/text"
)

// SweepSeries is one method's metric across simulation budgets, with one value per
// independent run at each budget.
type SweepSeries struct {
	Label   string
	Budgets []float64   // simulation budgets, positive
	Values  [][]float64 // Values[k] holds the runs at Budgets[k]
}

// SweepConfig configures BudgetSweep. Zero fields take the defaults.
type SweepConfig struct {
	Title     string
	XLabel    string    // what the series sweep over; default "simulation budget"
	YLabel    string    // the metric, e.g. "coverage AUC"
	Reference []float64 // horizontal reference lines, e.g. 0 for the AUC or the prior's log density
	RefLabel  string    // legend text of the reference lines; default "reference"
}

// BudgetSweep plots a metric against simulation budget in the style of the calibration
// papers: one colour per series, the median over runs as a line with points and the min–max
// range over runs as a band, budgets on a logarithmic axis. Runs whose value is NaN or ±Inf
// are left out of the median and the band, and the series' legend entry says how many. It
// returns an error when a budget is not positive and finite, a reference is not finite, a
// series has no budgets, or a series has no finite run at some budget. XLabel names the swept quantity
// when it is not the budget (a regularization weight λ, a number of layers L). In a notebook
// cell use MustBudgetSweep to end the cell with the plot.
func BudgetSweep(cfg SweepConfig, series ...SweepSeries) (*Plot, error) {
	xlabel := cfg.XLabel
	if xlabel == "" {
		xlabel = "simulation budget"
	}
	p := newPlot(cfg.Title, xlabel, cfg.YLabel)
	p.X.Scale = plot.LogScale{}
	for i, r := range cfg.Reference {
		if !isFinite(r) {
			return nil, fmt.Errorf("viz: BudgetSweep: Reference[%d] = %v, expected a finite value", i, r)
		}
	}
	var legend []string
	var budgets []float64
	for s, ser := range series {
		if len(ser.Budgets) != len(ser.Values) {
			return nil, fmt.Errorf("viz: BudgetSweep: series %q has %d budgets but %d sets of values", ser.Label, len(ser.Budgets), len(ser.Values))
		}
		if len(ser.Budgets) == 0 {
			return nil, fmt.Errorf("viz: BudgetSweep: series %q has no budgets; give it at least one, or leave the series out", ser.Label)
		}
		med := make(plotter.XYs, 0, len(ser.Budgets))
		var upper, lower plotter.XYs
		dropped := 0
		for k, b := range ser.Budgets {
			if !(b > 0) || math.IsInf(b, 1) {
				return nil, fmt.Errorf("viz: BudgetSweep: series %q has budget %v; budgets must be positive and finite", ser.Label, b)
			}
			v := finite(ser.Values[k])
			dropped += len(ser.Values[k]) - len(v)
			if len(v) == 0 {
				return nil, fmt.Errorf("viz: BudgetSweep: series %q has no finite value at budget %v", ser.Label, b)
			}
			sort.Float64s(v)
			med = append(med, plotter.XY{X: b, Y: median(v)})
			lower = append(lower, plotter.XY{X: b, Y: v[0]})
			upper = append(upper, plotter.XY{X: b, Y: v[len(v)-1]})
			budgets = append(budgets, b)
		}
		for k := len(lower) - 1; k >= 0; k-- {
			upper = append(upper, lower[k])
		}
		if band, err := plotter.NewPolygon(upper); err == nil {
			band.Color = Translucent(Color(s), 0.2)
			band.LineStyle.Width = 0
			p.Add(band)
		}
		line, sc, err := plotter.NewLinePoints(med)
		if err != nil {
			return nil, fmt.Errorf("viz: BudgetSweep: series %q: %w", ser.Label, err)
		}
		line.Color, line.Width = Color(s), vg.Points(1.6)
		sc.Color, sc.Radius, sc.Shape = Color(s), vg.Points(2.2), draw.CircleGlyph{}
		p.Add(line, sc)
		name := ser.Label
		if name == "" {
			name = fmt.Sprintf("series %d", s+1)
		}
		if dropped > 0 {
			name += fmt.Sprintf(" (%d non-finite %s left out)", dropped, text.Plural(dropped, "run", "runs"))
		}
		p.Legend.Add(name, line, sc)
		legend = append(legend, name)
	}
	if len(budgets) == 0 {
		return nil, fmt.Errorf("viz: BudgetSweep needs at least one series with budgets")
	}
	lo, hi := minMax(budgets)
	for i, r := range cfg.Reference {
		l := hLine(r, lo, hi)
		l.Color = color.Gray{40}
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(l)
		if i == 0 {
			name := cfg.RefLabel
			if name == "" {
				name = "reference"
			}
			p.Legend.Add(name, l)
			legend = append(legend, name)
		}
	}
	p.X.Tick.Marker = budgetTicks(budgets)
	p.Y.Tick.Marker = niceTicks{n: 6, labels: true}
	pad := math.Pow(hi/lo, 0.04)
	p.X.Min, p.X.Max = lo/pad, hi*pad
	padY(p)
	return withSideLegend(p, legend, 12*cm, 8.5*cm), nil
}

// MustBudgetSweep is BudgetSweep for the last expression of a notebook cell: it returns the
// plot alone and panics with BudgetSweep's error on bad input, as a regexp.MustCompile does.
func MustBudgetSweep(cfg SweepConfig, series ...SweepSeries) *Plot {
	return must(BudgetSweep(cfg, series...))
}

func finite(v []float64) []float64 {
	out := make([]float64, 0, len(v))
	for _, x := range v {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out = append(out, x)
		}
	}
	return out
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

func minMax(v []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range v {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo, hi
}

// budgetTicks labels each distinct budget: 2^n for powers of two that are not round decimal
// numbers, otherwise 1k, 10k, 1M style.
func budgetTicks(budgets []float64) plot.ConstantTicks {
	seen := map[float64]bool{}
	var ts plot.ConstantTicks
	sorted := append([]float64(nil), budgets...)
	sort.Float64s(sorted)
	for _, b := range sorted {
		if seen[b] {
			continue
		}
		seen[b] = true
		ts = append(ts, plot.Tick{Value: b, Label: budgetLabel(b)})
	}
	return ts
}

func budgetLabel(b float64) string {
	if e := math.Log2(b); e == math.Floor(e) && e >= 4 && math.Mod(b, 1000) != 0 {
		return fmt.Sprintf("2^%d", int(e))
	}
	switch {
	case b >= 1e6 && math.Mod(b, 1e5) == 0:
		return trimFloat(b/1e6) + "M"
	case b >= 1e3 && math.Mod(b, 1e2) == 0:
		return trimFloat(b/1e3) + "k"
	}
	return trimFloat(b)
}

func trimFloat(v float64) string { return fmt.Sprintf("%g", v) }

// must returns v, or panics with err itself: the body of the MustX forms, whose panic value
// stays an error so that errors.Is sees through a recovered panic.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
