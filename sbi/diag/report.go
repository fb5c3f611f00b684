package diag

import (
	"context"
	"encoding/base64"
	"fmt"
	"html"
	"math"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/internal/text"
	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/internal/safe"
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

	// Observation, when given, adds the local diagnostics at that x_o: the misspecification
	// check of x_o against the test simulations (in the estimator's summary space when it has
	// one), then, when x_o is typical of them, L-C2ST trained on the test pairs (LC2ST sets it;
	// its zero value is sbi's setting, 100 null classifiers: by far the costliest part of the
	// report) and, for a posterior sampled by MCMC, the health of its chains at x_o.
	Observation []float64
	LC2ST       LC2STConfig
	Misspec     MisspecConfig
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

	// The local diagnostics, present when ReportConfig.Observation was given: Misspec always;
	// Local (L-C2ST) unless the observation is atypical of the simulations, where it cannot
	// judge the posterior; MCMC when the posterior at x_o is sampled by MCMC.
	Observation []float64
	Misspec     *MisspecResult
	Local       *LC2STResult
	MCMC        *sbi.MCMCHealth
	Elapsed     time.Duration
}

// NewReport runs the calibration diagnostics of est on the test pairs (rows of theta and x,
// drawn from the joint): expected HPD coverage with the rank estimator (and the grid
// estimator when a box is given), marginal coverage, SBC, TARP (all from one set of posterior
// draws per pair) and the expected log posterior density. The Report displays as a compact
// HTML summary; viz.Report(r) displays it with its plots.
func NewReport(est sbi.Amortized, theta, x *mat.Dense, cfg ReportConfig) (*Report, error) {
	return NewReportContext(runenv.Context(), est, theta, x, cfg)
}

// MustNewReport is NewReport for notebook cells: it returns the result alone and panics with
// NewReport's error.
func MustNewReport(est sbi.Amortized, theta, x *mat.Dense, cfg ReportConfig) *Report {
	return safe.Must(NewReport(est, theta, x, cfg))
}

// NewReportContext is NewReport stopped by ctx instead of the host's context (runenv.Context).
func NewReportContext(ctx context.Context, est sbi.Amortized, theta, x *mat.Dense, cfg ReportConfig) (*Report, error) {
	start := time.Now()
	ro := RankConfig{Levels: cfg.Levels, Samples: cfg.Samples, Seed: cfg.Seed, Workers: cfg.Workers}.withDefaults()
	if err := checkLevels(ro.Levels); err != nil {
		return nil, err
	}
	pass, err := runSamplePass(ctx, est, theta, x, ro, passHPD|passMarginal|passTARP, "calibration report")
	if err != nil {
		return nil, err
	}
	_, dim := theta.Dims()
	r := &Report{Label: cfg.Label, N: len(pass.hpd), Dropped: pass.dropped}
	r.Coverage = coverageFromRanks(MethodRank, pass.hpd, ro.Levels)
	r.Coverage.Label = cfg.Label
	r.Marginal = marginalFromPass(pass, ro)
	r.SBC = sbcFromPass(pass, ro.Samples)
	r.TARP = tarpFromStatistics(pass.tarp)
	r.Coverage.Dropped, r.Marginal.Dropped, r.SBC.Dropped, r.TARP.Dropped = r.Dropped, r.Dropped, r.Dropped, r.Dropped
	r.Coverage.Proposal, r.Marginal.Proposal, r.SBC.Proposal, r.TARP.Proposal = pass.proposal, pass.proposal, pass.proposal, pass.proposal
	if cfg.Lower != nil || cfg.Upper != nil {
		pts := cfg.GridPoints
		if pts == 0 {
			pts = 90
			if dim == 3 {
				pts = 40
			}
		}
		r.Grid, err = GridCoverageContext(ctx, est, theta, x, GridConfig{Levels: ro.Levels, Lower: cfg.Lower, Upper: cfg.Upper,
			Points: pts, Seed: cfg.Seed, Workers: cfg.Workers})
		if err != nil {
			return nil, err
		}
		r.Grid.Label = strings.TrimSpace(cfg.Label + " (grid)")
	}
	r.LogProb, err = ExpectedLogProbContext(ctx, est, cfg.Prior, theta, x)
	if err != nil {
		return nil, err
	}
	if cfg.Observation != nil {
		if err := r.addLocal(ctx, est, theta, x, cfg); err != nil {
			return nil, err
		}
	}
	r.Elapsed = time.Since(start)
	return r, nil
}

// addLocal runs the diagnostics at the observation of o.
func (r *Report) addLocal(ctx context.Context, est sbi.Amortized, theta, x *mat.Dense, o ReportConfig) error {
	xo := o.Observation
	r.Observation = append([]float64(nil), xo...)
	mc := o.Misspec
	if mc.Seed == 0 {
		mc.Seed = o.Seed
	}
	var err error
	if r.Misspec, err = Misspecification(est, x, xo, mc); err != nil {
		return fmt.Errorf("diag: report at the observation: %w", err)
	}
	if r.Misspec.Reject() {
		return nil
	}
	lc := o.LC2ST
	if lc.Seed == 0 {
		lc.Seed = o.Seed
	}
	if lc.Workers == 0 {
		lc.Workers = o.Workers
	}
	if r.Local, err = LocalC2STContext(ctx, est, theta, x, xo, lc); err != nil {
		return fmt.Errorf("diag: report at the observation: %w", err)
	}
	post := est.Posterior(append([]float64(nil), xo...))
	if hp, ok := post.(interface{ MCMCHealth() *sbi.MCMCHealth }); ok {
		if rp, ok := post.(*sbi.RatioPosterior); !ok || rp.Method() == sbi.SamplerMCMC {
			samples := o.Samples
			if samples == 0 {
				samples = 1000
			}
			if _, err := sampleN(post, pairRNG(o.Seed, -1), samples); err != nil {
				return fmt.Errorf("diag: report: sampling the posterior at the observation: %w", err)
			}
			r.MCMC = hp.MCMCHealth()
		}
	}
	return nil
}

// Verdict sums up what the report's numbers support, in one paragraph: the global calibration
// (the coverage verdict) and, with an observation, what holds at it. At an observation atypical
// of the simulations the posterior is an extrapolation that no diagnostic here covers, and the
// verdict says so instead of reporting the calibration as if it applied.
func (r *Report) Verdict() string {
	v := "over the test pairs, " + r.Coverage.Verdict()
	if r.Misspec == nil {
		return v
	}
	if r.Misspec.Reject() {
		return v + fmt.Sprintf("; at the observation: %s. The calibration above is an average over simulations like the test pairs and says nothing about this observation; L-C2ST was not run, since its classifiers would extrapolate as well", r.Misspec.Verdict())
	}
	v += "; at the observation: " + r.Misspec.Verdict()
	if r.Local != nil {
		v += "; " + r.Local.Verdict()
	}
	if r.MCMC != nil && len(r.MCMC.Warnings()) > 0 {
		v += "; the MCMC draws at the observation did not mix: " + r.MCMC.Verdict()
	}
	return v
}

// Figure is one rendered plot of a report. PNG is nil when the plot could not be drawn; the
// title then says why.
type Figure struct {
	Title string
	PNG   []byte
}

// ReportWithFigures is a report shown with its plots: the table of the report's display,
// followed by the figures. Package diag does not draw; viz.Report builds one.
type ReportWithFigures struct {
	Report  *Report
	Figures []Figure
}

// MIMEBundle shows the report's table followed by its figures, and the report as text.
func (rf ReportWithFigures) MIMEBundle() map[string]any {
	return rf.Report.bundle(rf.Figures, true)
}

// String is the report's text summary.
func (rf ReportWithFigures) String() string { return rf.Report.String() }

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
		[2]string{"SBC uniformity", fmt.Sprintf("smallest χ² p-value %.3g over %s", minP, text.Count(len(r.SBC.PValues), "parameter"))},
		[2]string{"TARP", fmt.Sprintf("ATC %+.3f, KS p-value %.3g", r.TARP.ATC, r.TARP.KSPValue)},
		[2]string{"marginal coverage", r.marginalSummary()},
		[2]string{"expected log density", strings.TrimPrefix(r.LogProb.String(), "expected log posterior density ")},
	)
	if r.Dropped > 0 {
		rows = append(rows, [2]string{"left out", text.Count(r.Dropped, "test pair") + " with NaN or infinite values"})
	}
	if r.Misspec != nil {
		rows = append(rows, [2]string{"misspecification at x_o", r.Misspec.Verdict()})
		local := "not run: the observation is atypical of the simulations"
		if r.Local != nil {
			local = r.Local.Verdict()
		}
		rows = append(rows, [2]string{"L-C2ST at x_o", local})
	}
	if r.MCMC != nil {
		rows = append(rows, [2]string{"MCMC at x_o", r.MCMC.Verdict()})
	}
	if p := r.Coverage.Proposal; p != "" {
		rows = append(rows, [2]string{"trained on a proposal", proposalNote(p, r.Observation != nil)})
	}
	rows = append(rows, [2]string{"verdict", r.Verdict()})
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
		parts[d] = fmt.Sprintf("θ%d %.3f", d+1, c[k])
	}
	return fmt.Sprintf("at level %.2f: %s", r.Marginal.Levels[k], strings.Join(parts, ", "))
}

// MIMEBundle shows the report as a compact HTML table, and as text. The table ends with a
// note that viz.Report(r) shows the report with its plots: diag does not draw.
func (r *Report) MIMEBundle() map[string]any { return r.bundle(nil, false) }

// bundle is the display of the report: its table, then, with withFigures, figs; without, a
// note naming viz.Report.
func (r *Report) bundle(figs []Figure, withFigures bool) map[string]any {
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
	text := r.String()
	if !withFigures {
		b.WriteString(`<p><i>Plots (coverage, TARP, SBC and the local checks): display <code>viz.Report(report)</code>.</i></p>`)
		text += "  plots: display viz.Report(report)\n"
	}
	titles := make([]string, len(figs))
	for i, f := range figs {
		titles[i] = f.Title
		if f.PNG == nil {
			fmt.Fprintf(&b, `<p>%s</p>`, html.EscapeString(f.Title))
			continue
		}
		fmt.Fprintf(&b, `<img alt="%s" title="%s" style="max-width:48%%;margin:2px" src="data:image/png;base64,%s"/>`,
			html.EscapeString(f.Title), html.EscapeString(f.Title), base64.StdEncoding.EncodeToString(f.PNG))
	}
	if len(figs) > 0 {
		text += "  figures (images in a notebook): " + strings.Join(titles, "; ") + "\n"
	}
	b.WriteString("</div>")
	return map[string]any{"text/html": b.String(), "text/plain": text}
}
