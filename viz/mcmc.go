package viz

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/gosbi/gosbi/sbi"
)

// Limits of MCMC: the parameters and the chains it draws.
const (
	MaxMCMCParams = 6
	MaxMCMCChains = 8
)

// mcmcData is what MCMC draws for one parameter: the index and trace of each chain shown and,
// per chain, the counts of its draws' ranks among all draws in rankBins bins.
type mcmcData struct {
	chains []int
	traces [][]float64
	ranks  [][]float64
	expect float64 // count per bin if the chains mixed: draws per chain / rankBins
}

const rankBins = 20

// mcmcFinite reports, per chain, whether all its draws of all parameters are finite: a chain
// with a NaN or ±Inf draw cannot be drawn, and is left out of every panel.
func mcmcFinite(h *sbi.MCMCHealth) []bool {
	ok := make([]bool, len(h.Traces[0]))
	for c := range ok {
		ok[c] = true
		for d := range h.Traces {
			for _, v := range h.Traces[d][c] {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					ok[c] = false
				}
			}
		}
	}
	return ok
}

func mcmcLayers(h *sbi.MCMCHealth, d int) mcmcData {
	chains := h.Traces[d]
	finite := mcmcFinite(h)
	var pooled []float64
	for c, ch := range chains {
		if finite[c] {
			pooled = append(pooled, ch...)
		}
	}
	sort.Float64s(pooled)
	S := float64(len(pooled))
	var out mcmcData
	for c := range chains {
		if !finite[c] {
			continue
		}
		if len(out.chains) == MaxMCMCChains {
			break
		}
		out.chains = append(out.chains, c)
		out.traces = append(out.traces, chains[c])
		counts := make([]float64, rankBins)
		for _, v := range chains[c] {
			// the rank of v among all draws, as a fraction in [0, 1)
			r := float64(sort.SearchFloat64s(pooled, v)) / S
			counts[min(rankBins-1, int(r*rankBins))]++
		}
		out.ranks = append(out.ranks, counts)
	}
	out.expect = float64(h.Draws) / rankBins
	return out
}

// MCMC draws the diagnostics of an MCMC run: per parameter (the first MaxMCMCParams; the
// legend says how many of how many when there are more) the trace of each chain (at most
// MaxMCMCChains) and the rank plot of Vehtari et al. (2021, §4.2): the histogram of each
// chain's draws ranked among all draws, which is flat for every chain when the chains mixed,
// and differs between chains that sample different regions. Titles carry R̂ and the bulk ESS;
// the dashed line is the flat count. The figure's title is the whole verdict, wrapped to the
// figure's width. A chain with a NaN or ±Inf draw (in a health built by
// hand; NewMCMCHealth refuses them) is left out of every panel, and of the draws the ranks are
// taken among, and the legend says how many were left out. A health without traces, without
// the same number of chains for each parameter, or with R̂ and ESS not given for each
// parameter, makes a plot whose rendering returns an error saying so; so does a nil health,
// which a posterior that did not sample by MCMC returns.
func MCMC(h *sbi.MCMCHealth) *Plot {
	if h == nil {
		return failedFigure(14*cm, 5*cm, fmt.Errorf(`viz: MCMC: no result (a posterior's MCMCHealth is nil until it draws by MCMC; "auto" samples a few parameters with a bounded prior on a grid: ask for MCMC with PosteriorWith or PosteriorTrialsWith and sbi.SamplerConfig{Method: "mcmc"})`))
	}
	if why := mcmcUndrawable(h); why != "" {
		return failedFigure(14*cm, 5*cm, fmt.Errorf("viz: MCMC: the result cannot be drawn: %s", why))
	}
	var plots []*plot.Plot
	for d := range min(len(h.Traces), MaxMCMCParams) {
		lay := mcmcLayers(h, d)
		title := fmt.Sprintf("θ%s", subscript(d+1))
		if h.Assessed() {
			title += fmt.Sprintf("   R-hat %.3f, ESS %.0f", h.Rhat[d], h.ESSBulk[d]) // the font has no combining hat
		}
		tr := newPlot(title, "draw", "")
		for k, ch := range lay.traces {
			c := lay.chains[k]
			pts := make(plotter.XYs, len(ch))
			for i, v := range ch {
				pts[i] = plotter.XY{X: float64(i), Y: v}
			}
			if l, err := plotter.NewLine(pts); err == nil {
				l.Color, l.Width = Translucent(Color(c), 0.8), vg.Points(0.7)
				tr.Add(l)
			}
		}
		if h.Assessed() && h.Rhat[d] > h.RhatLimit {
			tr.Title.TextStyle.Color = Color(1)
		}
		tr.X.Tick.Marker = niceTicks{n: 4, labels: true}
		tr.Y.Tick.Marker = niceTicks{n: 4, labels: true}
		rk := newPlot("rank plot", "rank among all draws", "")
		top := lay.expect
		for k, counts := range lay.ranks {
			c := lay.chains[k]
			pts := make(plotter.XYs, rankBins+1)
			for k, v := range counts {
				pts[k] = plotter.XY{X: float64(k) / rankBins, Y: v}
				top = math.Max(top, v)
			}
			pts[rankBins] = plotter.XY{X: 1, Y: counts[rankBins-1]}
			if l, err := plotter.NewLine(pts); err == nil {
				l.StepStyle = plotter.PostStep
				l.Color, l.Width = Color(c), vg.Points(1)
				rk.Add(l)
			}
		}
		flat := hLine(lay.expect, 0, 1)
		flat.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
		rk.Add(flat)
		rk.X.Min, rk.X.Max, rk.Y.Min, rk.Y.Max = 0, 1, 0, 1.1*top
		rk.X.Tick.Marker = fixedTicks(0, 1, 0.25, "%.2f")
		rk.Y.Tick.Marker = niceTicks{n: 4, labels: true}
		plots = append(plots, tr, rk)
	}
	total, left := len(h.Traces[0]), 0
	for _, ok := range mcmcFinite(h) {
		if !ok {
			left++
		}
	}
	chains := fmt.Sprintf("%d of %d chains", min(total-left, MaxMCMCChains), total)
	if left > 0 {
		chains += fmt.Sprintf(" (%d with NaN or ±Inf draws left out)", left)
	}
	legend := []string{chains, "flat: chains mixed"}
	if n := len(h.Traces); n > MaxMCMCParams {
		legend = append(legend, fmt.Sprintf("%d of %d parameters (the first)", MaxMCMCParams, n))
	}
	p := rowsOf(plots, 2, 7*cm, 5*cm, legend)
	// the whole verdict, which Plot.Draw wraps to the figure; the font has no combining hat
	p.Title = strings.ReplaceAll(h.Verdict(), "R̂", "R-hat")
	return p
}

// mcmcUndrawable says why MCMC cannot draw h, or returns "".
func mcmcUndrawable(h *sbi.MCMCHealth) string {
	if len(h.Traces) == 0 {
		return "it holds no traces"
	}
	if h.Assessed() && (len(h.Rhat) != len(h.Traces) || len(h.ESSBulk) != len(h.Traces)) {
		return fmt.Sprintf("it holds R-hat of %d parameters and bulk ESS of %d for traces of %d, expected one of each per parameter", len(h.Rhat), len(h.ESSBulk), len(h.Traces))
	}
	for d, chains := range h.Traces {
		if len(chains) != len(h.Traces[0]) {
			return fmt.Sprintf("parameter %d holds %d chains, parameter 1 holds %d; expected the same chains for all", d+1, len(chains), len(h.Traces[0]))
		}
	}
	return ""
}

// rowsOf lays gonum plots out cols per row with aligned axes.
func rowsOf(plots []*plot.Plot, cols int, w, h vg.Length, legend []string) *Plot {
	if len(plots) <= cols {
		return row(plots, w, h, legend)
	}
	rows := (len(plots) + cols - 1) / cols
	var figs []*Plot
	for r := range rows {
		figs = append(figs, row(plots[r*cols:min(len(plots), (r+1)*cols)], w, h, nil))
	}
	g := Grid(1, figs...)
	g.legend = legend
	return g
}
