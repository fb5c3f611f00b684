package viz

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gosbi/gosbi/internal/pvalue"
	"github.com/gosbi/gosbi/internal/text"
	"github.com/gosbi/gosbi/sbi/diag"
)

// lc2stData is what LC2ST draws, computed from the result alone.
type lc2stData struct {
	pp, band, dirac plotter.XYs // the classifier's PP curve, the null band, the curve of d = ½
	null            []float64   // null statistics (histogram)
	observed        float64     // the statistic at x_o (vertical line)
	names           []string    // legend entries of both panels
}

func lc2stLayers(r *diag.LC2STResult) lc2stData {
	var d lc2stData
	for k, g := range r.Grid {
		d.pp = append(d.pp, plotter.XY{X: g, Y: r.CDF[k]})
	}
	d.band = bandPolygon(r.Grid, r.NullLower, r.NullUpper)
	d.dirac = plotter.XYs{{X: 0, Y: 0}, {X: 0.5, Y: 0}, {X: 0.5, Y: 1}, {X: 1, Y: 1}}
	d.null = append([]float64(nil), r.Null...)
	d.observed = r.Value
	d.names = []string{
		fmt.Sprintf("null band (%s, %d classifiers)", text.Percent(1-r.Alpha), len(r.Null)),
		"indistinguishable (all ½)",
		"classifier at x_o",
		fmt.Sprintf("null statistics (%d)", len(r.Null)),
		fmt.Sprintf("at x_o: %.3g, %s", r.Value, pAgainst(r.PValue, r.Alpha)),
	}
	return d
}

// pAgainst writes "p = … ≤ α = …" or "p = … > α = …" with the digits that keep p on its side
// of alpha (pvalue.Format), or "p = NaN".
func pAgainst(p, alpha float64) string {
	ps, as := pvalue.Format(p, alpha)
	switch {
	case math.IsNaN(p) || math.IsNaN(alpha):
		return "p = " + ps
	case p <= alpha:
		return fmt.Sprintf("p = %s ≤ α = %s", ps, as)
	}
	return fmt.Sprintf("p = %s > α = %s", ps, as)
}

// LC2ST draws an L-C2ST result in two panels. Left, the PP-plot of Linhart et al. (2023,
// Fig. 3): the share of the classifier's predicted probabilities (that an evaluation draw at
// x_o comes from the estimator) at or below each level, against the band that the null
// classifiers' curves fill (pointwise 1 − α), and the step of a classifier that predicts ½
// everywhere. A curve outside the band is the local difference the test detects; a curve that
// rises late (probabilities above ½) means the estimator puts more mass where its draws fell
// than the true posterior does. Right, the statistic at x_o against the histogram of the null
// statistics, with the p-value against α (written with the digits that keep it on its side of
// α). The left panel's title carries the verdict's first words. When the
// result cannot be drawn (nil, no grid points, not one CDF value and null bound per grid point,
// or a value that is not finite), the plot draws nothing: rendering it returns an error saying
// why.
func LC2ST(r *diag.LC2STResult) *Plot {
	if r == nil {
		return failedFigure(17*cm, 9*cm, errors.New("viz: LC2ST: no result"))
	}
	if why := lc2stUndrawable(r); why != "" {
		return failedFigure(17*cm, 9*cm, fmt.Errorf("viz: LC2ST: the result cannot be drawn: %s", why))
	}
	d := lc2stLayers(r)
	name := "L-C2ST"
	if r.Flow {
		name = "L-C2ST-NF"
	}
	verdict := "no evidence of a difference"
	switch {
	case r.Outside:
		verdict = "inconclusive: x_o outside the calibration data"
	case 1/float64(len(r.Null)+1) > r.Alpha: // no p-value can reach Alpha (as diag's verdict says)
		verdict = fmt.Sprintf("inconclusive: too few null classifiers (%d)", len(r.Null))
	case r.Reject():
		verdict = "rejected"
	}
	pp := newPlot(fmt.Sprintf("%s at x_o: %s", name, verdict), "predicted probability (estimator class)", "share of evaluation draws ≤")
	pp.X.Min, pp.X.Max, pp.Y.Min, pp.Y.Max = 0, 1, 0, 1
	pp.X.Tick.Marker = fixedTicks(0, 1, 0.2, "%.1f")
	pp.Y.Tick.Marker = fixedTicks(0, 1, 0.2, "%.1f")
	if band, err := plotter.NewPolygon(d.band); err == nil {
		band.Color = color.NRGBA{0x80, 0x80, 0x80, 0x50}
		band.LineStyle.Width = 0
		pp.Add(band)
		pp.Legend.Add(d.names[0], band)
	}
	dirac, _ := plotter.NewLine(d.dirac)
	dirac.Color = color.Gray{60}
	dirac.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	pp.Add(dirac)
	pp.Legend.Add(d.names[1], dirac)
	curve, _ := plotter.NewLine(d.pp)
	curve.Color, curve.Width = Color(1), vg.Points(1.8)
	pp.Add(curve)
	pp.Legend.Add(d.names[2], curve)

	h := newPlot(fmt.Sprintf("%s statistic", r.Statistic), "statistic", "null classifiers")
	hist, top := histogram(d.null, 20, math.Min(minOf(d.null), d.observed), math.Max(maxOf(d.null), d.observed))
	h.Add(hist)
	h.Legend.Add(d.names[3], hist)
	obs := vLine(d.observed, 0, top*1.1)
	obs.Color, obs.Width = Color(1), vg.Points(2)
	h.Add(obs)
	h.Legend.Add(d.names[4], obs)
	h.Y.Min, h.Y.Max = 0, top*1.1
	padX(h, hist)
	h.X.Tick.Marker = niceTicks{n: 4, labels: true}
	h.Y.Tick.Marker = niceTicks{n: 4, labels: true}
	return Row(withSideLegend(pp, d.names[:3], 9*cm, 9*cm), withSideLegend(h, d.names[3:], 8*cm, 9*cm))
}

// lc2stUndrawable says why LC2ST cannot draw r, or returns "".
func lc2stUndrawable(r *diag.LC2STResult) string {
	if !isFinite(r.Value) {
		return fmt.Sprintf("its statistic at x_o is %v, expected a finite value", r.Value)
	}
	if why := nonFiniteNull(r.Null); why != "" {
		return why
	}
	n := len(r.Grid)
	switch {
	case n == 0:
		return "it holds no grid points"
	case len(r.CDF) != n || len(r.NullLower) != n || len(r.NullUpper) != n:
		return fmt.Sprintf("it holds %d grid points, %d CDF values and %d and %d null bounds, expected one of each per grid point",
			n, len(r.CDF), len(r.NullLower), len(r.NullUpper))
	}
	for k, g := range r.Grid {
		if c, lo, hi := r.CDF[k], r.NullLower[k], r.NullUpper[k]; !isFinite(g) || !isFinite(c) || !isFinite(lo) || !isFinite(hi) {
			return fmt.Sprintf("at grid point %d (%v) its CDF is %v and its null band [%v, %v], expected finite values", k+1, g, c, lo, hi)
		}
	}
	return ""
}

// nonFiniteNull names the first null statistic that is not finite, or returns "".
func nonFiniteNull(null []float64) string {
	for i, v := range null {
		if !isFinite(v) {
			return fmt.Sprintf("null statistic %d is %v, expected a finite value", i+1, v)
		}
	}
	return ""
}

// histogram bins v into bins equal bins over [lo, hi] (widened when lo = hi) and returns the
// histogram and its highest count. When every value of v is the same, the bins are shifted by
// at most half a bin so that the value lies at the middle of its bin: its bar then stands
// centred on the value (and on a line drawn there), not beside it.
func histogram(v []float64, bins int, lo, hi float64) (*plotter.Histogram, float64) {
	if !(hi > lo) {
		lo, hi = lo-0.5*math.Max(math.Abs(lo), 1e-3), hi+0.5*math.Max(math.Abs(hi), 1e-3)
	}
	if c, ok := single(v); ok {
		w := (hi - lo) / float64(bins)
		shift := c - (lo + (math.Floor((c-lo)/w)+0.5)*w)
		lo, hi = lo+shift, hi+shift
	}
	counts := binCounts(v, bins, lo, hi)
	w := (hi - lo) / float64(bins)
	hb := make([]plotter.HistogramBin, bins)
	top := 0.0
	for k, c := range counts {
		hb[k] = plotter.HistogramBin{Min: lo + float64(k)*w, Max: lo + float64(k+1)*w, Weight: c}
		top = math.Max(top, c)
	}
	return &plotter.Histogram{Bins: hb, Width: w, FillColor: Translucent(Color(0), 0.45),
		LineStyle: draw.LineStyle{Color: Color(0), Width: vg.Points(0.5)}}, math.Max(top, 1)
}

// single returns the value of v when v holds values all equal.
func single(v []float64) (float64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	for _, x := range v[1:] {
		if x != v[0] {
			return 0, false
		}
	}
	return v[0], true
}

// binCounts counts v in bins equal bins over [lo, hi], the last bin closed.
func binCounts(v []float64, bins int, lo, hi float64) []float64 {
	counts := make([]float64, bins)
	w := (hi - lo) / float64(bins)
	for _, x := range v {
		k := int(math.Floor((x - lo) / w))
		if k == bins && x <= hi {
			k = bins - 1
		}
		if k >= 0 && k < bins {
			counts[k]++
		}
	}
	return counts
}

func minOf(v []float64) float64 {
	m := math.Inf(1)
	for _, x := range v {
		m = math.Min(m, x)
	}
	return m
}

// Misspecification draws the MMD² of the observation against the histogram of the
// calibration simulations' statistics (the null distribution of the test), with the p-value
// against α (written with the digits that keep it on its side of α), and as title the verdict's
// first words (inconclusive when too few calibration simulations can reach α, as diag's
// verdict says). When the result cannot be drawn (nil, or a statistic
// that is not finite), the plot draws nothing: rendering it returns an error saying why.
func Misspecification(r *diag.MisspecResult) *Plot {
	if r == nil {
		return failedFigure(11*cm, 8*cm, errors.New("viz: Misspecification: no result"))
	}
	why := nonFiniteNull(r.Null)
	if !isFinite(r.Statistic) {
		why = fmt.Sprintf("its statistic at the observation is %v, expected a finite value", r.Statistic)
	}
	if why != "" {
		return failedFigure(11*cm, 8*cm, fmt.Errorf("viz: Misspecification: the result cannot be drawn: %s", why))
	}
	verdict := "consistent with the simulations"
	switch {
	case !r.CanReject():
		verdict = "inconclusive (too few simulations)"
	case r.Reject():
		verdict = "atypical of the simulations"
	}
	p := newPlot("misspecification check: "+verdict, fmt.Sprintf("MMD² against %d simulations (%s)", r.Reference, r.Space), "simulations")
	lo, hi := math.Min(minOf(r.Null), r.Statistic), math.Max(maxOf(r.Null), r.Statistic)
	hist, top := histogram(r.Null, 30, lo, hi)
	p.Add(hist)
	names := []string{fmt.Sprintf("%d held-out simulations", r.Calibration), "observation, " + pAgainst(r.PValue, r.Alpha)}
	p.Legend.Add(names[0], hist)
	obs := vLine(r.Statistic, 0, 1.1*top)
	obs.Color, obs.Width = Color(1), vg.Points(2)
	p.Add(obs)
	p.Legend.Add(names[1], obs)
	p.Y.Min, p.Y.Max = 0, 1.1*top
	padX(p, hist)
	p.X.Tick.Marker = niceTicks{n: 5, labels: true}
	p.Y.Tick.Marker = niceTicks{n: 4, labels: true}
	return withSideLegend(p, names, 11*cm, 8*cm)
}

// MaxPredictivePanels is the most data values PredictiveCheck draws: the flagged ones first,
// then the others in order.
const MaxPredictivePanels = 16

// predictivePanels returns the data values PredictiveCheck draws, in order: the tested ones
// (not Constant).
func predictivePanels(r *diag.PredictiveResult) []int {
	flagged := r.Flagged()
	seen := map[int]bool{}
	out := append([]int(nil), flagged...)
	for _, d := range flagged {
		seen[d] = true
	}
	for _, d := range r.Constant {
		seen[d] = true
	}
	for d := range r.PValues {
		if !seen[d] {
			out = append(out, d)
		}
	}
	return out[:min(len(out), MaxPredictivePanels)]
}

// PredictiveCheck draws one histogram of the predictive simulations per data value (at most
// MaxPredictivePanels, flagged values first; the legend says how many of how many when there
// are more) with the observation as a vertical line; the panel titles give the observation's
// quantile and p-value, in vermillion where the verdict flags the value (p ≤ α/(T+2) over the
// T tested values); the p-values are written as diag's display writes them, with the digits
// that keep each on its side of that level. Values equal in every simulation and in the
// observation (Constant) are not tested and not drawn, and the legend says how many. NaN in a
// simulation is padding (a data set of fewer trials), and so is NaN in the observation where
// diag compared it as present or absent; where there is padding the panel draws the values
// that are not NaN and says how many are. When the result cannot be drawn (nil, no
// simulations, not one observation, name, quantile and p-value per simulated value, a value
// that is ±Inf or NaN outside padding, or no tested value), the plot draws nothing: rendering
// it returns an error saying why.
func PredictiveCheck(r *diag.PredictiveResult) *Plot {
	if r == nil {
		return failedFigure(6*cm, 5*cm, errors.New("viz: PredictiveCheck: no result"))
	}
	if why := predictiveUndrawable(r); why != "" {
		return failedFigure(6*cm, 5*cm, fmt.Errorf("viz: PredictiveCheck: the result cannot be drawn: %s", why))
	}
	var plots []*plot.Plot
	titles, flagged := predictiveTitles(r)
	for _, d := range predictivePanels(r) {
		col := colOf(r, d)
		lo, hi := predictiveRange(col, r.Observation[d])
		p := newPlot(titles[d], "", "")
		if flagged[d] {
			p.Title.TextStyle.Color = Color(1)
		}
		hist, top := histogram(col, 30, lo, hi)
		p.Add(hist)
		if o := r.Observation[d]; !math.IsNaN(o) {
			obs := vLine(o, 0, 1.1*top)
			obs.Color, obs.Width = Color(1), vg.Points(2)
			p.Add(obs)
		}
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, 0, 1.1*top
		p.X.Tick.Marker = niceTicks{n: 4, labels: true}
		p.Y.Tick.Marker = niceTicks{n: 4}
		plots = append(plots, p)
	}
	m, n := r.Sims.Dims()
	legend := []string{fmt.Sprintf("%s simulations (%d)", r.Label, m), "observation"}
	if tested := n - len(r.Constant); tested > MaxPredictivePanels {
		what := "data values"
		if len(r.Constant) > 0 {
			what = "tested " + what
		}
		legend = append(legend, fmt.Sprintf("%d of %d %s (flagged first)", MaxPredictivePanels, tested, what))
	}
	if k := len(r.Constant); k > 0 {
		legend = append(legend, fmt.Sprintf("%d of %d data values equal in every simulation and the observation: not tested, not drawn", k, n))
	}
	return row(plots, 6*cm, 5*cm, legend)
}

// predictiveRange is quantileRange of the values v, or of the observation x alone when v is
// empty (a padding value NaN in every simulation); x NaN (padding) is left out.
func predictiveRange(v []float64, x float64) (lo, hi float64) {
	switch {
	case len(v) == 0:
		return x - 0.5, x + 0.5
	case math.IsNaN(x):
		return quantileRange(v, v[0])
	}
	return quantileRange(v, x)
}

// predictiveTitles are the panel titles of PredictiveCheck, one per data value ("" for the
// Constant values, never drawn), and whether each value is flagged, as diag flags it (Flagged);
// the p-values are written as diag writes them (ShownPValues).
func predictiveTitles(r *diag.PredictiveResult) ([]string, []bool) {
	shown := r.ShownPValues()
	titles, flagged := make([]string, len(r.PValues)), make([]bool, len(r.PValues))
	m, _ := r.Sims.Dims()
	constant := make([]bool, len(r.PValues))
	for _, d := range r.Constant {
		if d >= 0 && d < len(constant) {
			constant[d] = true
		}
	}
	nan := nanCounts(r)
	for d := range r.PValues {
		switch {
		case constant[d]:
		case math.IsNaN(r.Quantile[d]): // padding: present or absent
			titles[d] = fmt.Sprintf("%s   NaN in %d of %d, p = %s", r.Names[d], nan[d], m, shown[d])
		case nan[d] > 0: // ranked among the simulations that have a value
			titles[d] = fmt.Sprintf("%s   q = %.3f, p = %s, NaN in %d of %d", r.Names[d], r.Quantile[d], shown[d], nan[d], m)
		default:
			titles[d] = fmt.Sprintf("%s   q = %.3f, p = %s", r.Names[d], r.Quantile[d], shown[d])
		}
	}
	for _, d := range r.Flagged() {
		flagged[d] = true
	}
	return titles, flagged
}

// predictiveUndrawable says why PredictiveCheck cannot draw r, or returns "".
func predictiveUndrawable(r *diag.PredictiveResult) string {
	if r.Sims == nil || r.Sims.IsEmpty() {
		return "it holds no simulations"
	}
	m, n := r.Sims.Dims()
	if len(r.Observation) != n || len(r.Names) != n || len(r.Quantile) != n || len(r.PValues) != n {
		return fmt.Sprintf("it holds simulations of %d values, an observation of %d, %d names, %d quantiles and %d p-values, expected one of each per value",
			n, len(r.Observation), len(r.Names), len(r.Quantile), len(r.PValues))
	}
	if len(r.Constant) >= n {
		return "all its data values are equal in every simulation and in the observation: none was tested"
	}
	// NaN in the observation is padding where diag compared it as present or absent (Quantile
	// NaN); in a simulation it is padding anywhere (diag ranks among those with a value).
	padding := func(d int, v float64) bool { return math.IsNaN(v) && math.IsNaN(r.Quantile[d]) }
	for d, o := range r.Observation {
		if !isFinite(o) && !padding(d, o) {
			return fmt.Sprintf("its observation of %s is %v, expected a finite value", r.Names[d], o)
		}
	}
	for i := range m {
		for d, v := range r.Sims.RawRowView(i) {
			if math.IsInf(v, 0) {
				return fmt.Sprintf("simulation %d of %s is %v, expected a finite value", i+1, r.Names[d], v)
			}
		}
	}
	return ""
}

// nanCounts returns, per data value, the number of simulations that are NaN there (padding).
func nanCounts(r *diag.PredictiveResult) []int {
	m, n := r.Sims.Dims()
	k := make([]int, n)
	for i := range m {
		for d, v := range r.Sims.RawRowView(i) {
			if math.IsNaN(v) {
				k[d]++
			}
		}
	}
	return k
}

// colOf returns the simulations of data value d that are not NaN (padding).
func colOf(r *diag.PredictiveResult, d int) []float64 {
	m, _ := r.Sims.Dims()
	out := make([]float64, 0, m)
	for i := range m {
		if v := r.Sims.At(i, d); !math.IsNaN(v) {
			out = append(out, v)
		}
	}
	return out
}

// quantileRange is the 0.5%–99.5% range of v widened to hold x, padded by 5%.
func quantileRange(v []float64, x float64) (lo, hi float64) {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	lo = math.Min(s[int(0.005*float64(len(s)-1))], x)
	hi = math.Max(s[int(math.Ceil(0.995*float64(len(s)-1)))], x)
	pad := 0.05 * (hi - lo)
	if pad == 0 {
		pad = 0.5
	}
	return lo - pad, hi + pad
}

// padX sets the x range to the histogram's bins widened by 5% on both sides, so that a line at
// either end is not drawn on the frame.
func padX(p *plot.Plot, h *plotter.Histogram) {
	lo, hi := h.Bins[0].Min, h.Bins[len(h.Bins)-1].Max
	pad := 0.05 * (hi - lo)
	p.X.Min, p.X.Max = lo-pad, hi+pad
}
