package diag

import (
	"encoding/base64"
	"fmt"
	"html"
	"math"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
)

// ReportConfig configures NewReport; its zero value is the default.
type ReportConfig struct {
	Label   string    // name of the estimator in the report
	Levels  []float64 // credibility levels; nil means Levels(19)
	Samples int       // posterior draws per test pair; 0 means 1000
	Seed    uint64
	Workers int // 0 means GOMAXPROCS

	// Lower and Upper, when given for up to 3 parameters, add the grid coverage estimator
	// over that prior box (GridPoints per dimension, default 90 in 1-D and 2-D, 40 in 3-D).
	Lower, Upper []float64
	GridPoints   int

	// Prior, when given, adds its expected log density as the reference of the expected log
	// posterior density.
	Prior LogDensity
}

// Report gathers the calibration diagnostics of one estimator on one set of test pairs.
type Report struct {
	Label    string
	N        int             // test pairs used
	Dropped  int             // test pairs left out because θ or x held NaN or ±Inf
	Coverage *CoverageResult // HPD coverage, rank estimator
	Grid     *CoverageResult // HPD coverage, grid estimator; nil without a box
	Marginal *MarginalResult // central-interval coverage per parameter
	SBC      *SBCResult
	TARP     *TARPResult
	LogProb  *LogProbResult
	Elapsed  time.Duration
}

// NewReport runs the calibration diagnostics of est on the test pairs (rows of theta and x,
// drawn from the joint): expected HPD coverage with the rank estimator (and the grid
// estimator when a box is given), marginal coverage, SBC, TARP (all from one set of posterior
// draws per pair) and the expected log posterior density. The Report displays as a compact
// HTML summary, with plots when package viz is linked into the program.
func NewReport(est sbi.Amortized, theta, x *mat.Dense, o ReportConfig) (*Report, error) {
	start := time.Now()
	ro := RankConfig{Levels: o.Levels, Samples: o.Samples, Seed: o.Seed, Workers: o.Workers}.withDefaults()
	if err := checkLevels(ro.Levels); err != nil {
		return nil, err
	}
	pass, err := runSamplePass(est, theta, x, ro, passHPD|passMarginal|passTARP, "calibration report")
	if err != nil {
		return nil, err
	}
	_, dim := theta.Dims()
	r := &Report{Label: o.Label, N: len(pass.hpd), Dropped: pass.dropped}
	r.Coverage = coverageFromRanks(MethodRank, pass.hpd, ro.Levels)
	r.Coverage.Label = o.Label
	r.Marginal = marginalFromPass(pass, ro)
	r.SBC = sbcFromPass(pass, ro.Samples)
	r.TARP = tarpFromStatistics(pass.tarp)
	r.Coverage.Dropped, r.Marginal.Dropped, r.SBC.Dropped, r.TARP.Dropped = r.Dropped, r.Dropped, r.Dropped, r.Dropped
	if o.Lower != nil || o.Upper != nil {
		pts := o.GridPoints
		if pts == 0 {
			pts = 90
			if dim == 3 {
				pts = 40
			}
		}
		r.Grid, err = GridCoverage(est, theta, x, GridConfig{Levels: ro.Levels, Lower: o.Lower, Upper: o.Upper,
			Points: pts, Seed: o.Seed, Workers: o.Workers})
		if err != nil {
			return nil, err
		}
		r.Grid.Label = strings.TrimSpace(o.Label + " (grid)")
	}
	r.LogProb, err = ExpectedLogProb(est, o.Prior, theta, x)
	if err != nil {
		return nil, err
	}
	r.Elapsed = time.Since(start)
	return r, nil
}

// Figure is one rendered plot of a report.
type Figure struct {
	Title string
	PNG   []byte
}

var figures struct {
	mu sync.RWMutex
	fn func(*Report) []Figure
}

// RegisterReportFigures sets the function that draws a report's plots. Package viz registers
// itself when it is linked; diag does not draw.
func RegisterReportFigures(f func(*Report) []Figure) {
	figures.mu.Lock()
	defer figures.mu.Unlock()
	figures.fn = f
}

// Figures draws the report's plots with the registered function; nil when none is registered.
func (r *Report) Figures() []Figure {
	figures.mu.RLock()
	f := figures.fn
	figures.mu.RUnlock()
	if f == nil {
		return nil
	}
	return f(r)
}

// String is a text summary.
func (r *Report) String() string {
	var b strings.Builder
	name := r.Label
	if name == "" {
		name = "estimator"
	}
	fmt.Fprintf(&b, "calibration report: %s, %d test pairs (%.1f s)\n", name, r.N, r.Elapsed.Seconds())
	for _, row := range r.rows() {
		fmt.Fprintf(&b, "  %-28s %s\n", row[0], row[1])
	}
	return b.String()
}

func (r *Report) rows() [][2]string {
	cov := func(c *CoverageResult) string {
		return fmt.Sprintf("AUC %+.4f, calibration error %.4f, conservativeness error %.4f: %s",
			c.AUC, c.CalibrationError, c.ConservativenessError, c.Verdict())
	}
	rows := [][2]string{{"HPD coverage (rank)", cov(r.Coverage)}}
	if r.Grid != nil {
		rows = append(rows, [2]string{"HPD coverage (grid)", cov(r.Grid)})
	}
	minP := math.Inf(1)
	for _, p := range r.SBC.PValues {
		minP = math.Min(minP, p)
	}
	rows = append(rows,
		[2]string{"SBC uniformity", fmt.Sprintf("smallest χ² p-value %.3g over %d parameters", minP, len(r.SBC.PValues))},
		[2]string{"TARP", fmt.Sprintf("ATC %+.3f, KS p-value %.3g", r.TARP.ATC, r.TARP.KSPValue)},
		[2]string{"marginal coverage", r.marginalSummary()},
		[2]string{"expected log density", r.LogProb.String()[len("expected log posterior density "):]},
	)
	if r.Dropped > 0 {
		rows = append(rows, [2]string{"left out", fmt.Sprintf("%d test pairs with NaN or infinite values", r.Dropped)})
	}
	return rows
}

// marginalSummary gives each parameter's coverage at the level nearest 0.9.
func (r *Report) marginalSummary() string {
	k := 0
	for i, l := range r.Marginal.Levels {
		if math.Abs(l-0.9) < math.Abs(r.Marginal.Levels[k]-0.9) {
			k = i
		}
	}
	parts := make([]string, len(r.Marginal.Coverage))
	for d, c := range r.Marginal.Coverage {
		parts[d] = fmt.Sprintf("θ[%d] %.3f", d, c[k])
	}
	return fmt.Sprintf("at level %.2f: %s", r.Marginal.Levels[k], strings.Join(parts, ", "))
}

// MIMEBundle shows the report as a compact HTML table followed by its plots (when package
// viz is linked), and as text.
func (r *Report) MIMEBundle() map[string]any {
	var b strings.Builder
	name := r.Label
	if name == "" {
		name = "estimator"
	}
	fmt.Fprintf(&b, `<div><b>Calibration report</b>: %s, %d test pairs (%.1f s)<table style="font-size:90%%">`,
		html.EscapeString(name), r.N, r.Elapsed.Seconds())
	for _, row := range r.rows() {
		fmt.Fprintf(&b, `<tr><th style="text-align:left">%s</th><td style="text-align:left">%s</td></tr>`,
			html.EscapeString(row[0]), html.EscapeString(row[1]))
	}
	b.WriteString("</table>")
	for _, f := range r.Figures() {
		fmt.Fprintf(&b, `<img alt="%s" title="%s" style="max-width:48%%;margin:2px" src="data:image/png;base64,%s"/>`,
			html.EscapeString(f.Title), html.EscapeString(f.Title), base64.StdEncoding.EncodeToString(f.PNG))
	}
	b.WriteString("</div>")
	return map[string]any{"text/html": b.String(), "text/plain": r.String()}
}
