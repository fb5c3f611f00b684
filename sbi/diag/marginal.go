package diag

import (
	"context"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/internal/pvalue"
	"github.com/gosbi/gosbi/internal/text"
	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/internal/safe"
)

// MarginalResult is the coverage of central credible intervals of each parameter's marginal.
type MarginalResult struct {
	N        int
	Levels   []float64   // interval credibility ρ: the interval between the (1−ρ)/2 and (1+ρ)/2 quantiles
	Coverage [][]float64 // Coverage[d][k]: fraction of pairs with θ*_d inside the level-k interval of parameter d
	// Lower and Upper bound the pointwise binomial band of an exactly calibrated estimator: its
	// coverage of one parameter at one level falls inside with probability DefaultConfidence.
	Lower, Upper []float64
	// SimLower and SimUpper bound the simultaneous band, which holds the coverage of an exactly
	// calibrated estimator at all levels of all parameters at once with probability at least
	// DefaultConfidence: the pointwise band at confidence 1 − (1 − DefaultConfidence)/(Dim·K)
	// for K levels (Bonferroni's inequality). Only a coverage outside it is evidence of
	// miscalibration over the whole table; by chance a calibrated estimator leaves the
	// pointwise band in some of its Dim·K cells most of the time.
	SimLower, SimUpper []float64
	// Dropped counts the test pairs left out because θ or x held NaN or ±Inf.
	Dropped int
	// Proposal is the estimator's TrainingProposal (sbi.NPE.TrainingProposal) when it was
	// trained on parameters drawn from a proposal, not from its prior (Sequential's later
	// rounds); "" otherwise. String and MIMEBundle then note that over test pairs drawn from the
	// whole prior the check tests what the estimator was not trained for. The verdict does not
	// use it.
	Proposal string
}

// MarginalCoverage estimates, for every parameter, how often the true value falls inside the
// central credible interval of its marginal posterior (the diagnostic of Bayesian score
// calibration, Vandeskog et al.). With the marginal rank r = (k + U)/(M + 1),
// k = #{j : θⱼ,d < θ*_d}, θ*_d lies inside the central ρ interval iff |r − ½| ≤ ρ/2.
func MarginalCoverage(est sbi.Amortized, theta, x *mat.Dense, cfg RankConfig) (*MarginalResult, error) {
	return MarginalCoverageContext(runenv.Context(), est, theta, x, cfg)
}

// MustMarginalCoverage is MarginalCoverage for notebook cells: it returns the result alone and
// panics with MarginalCoverage's error.
func MustMarginalCoverage(est sbi.Amortized, theta, x *mat.Dense, cfg RankConfig) *MarginalResult {
	return safe.Must(MarginalCoverage(est, theta, x, cfg))
}

// MarginalCoverageContext is MarginalCoverage stopped by ctx instead of the host's context
// (runenv.Context).
func MarginalCoverageContext(ctx context.Context, est sbi.Amortized, theta, x *mat.Dense, cfg RankConfig) (*MarginalResult, error) {
	cfg = cfg.withDefaults()
	if err := checkLevels(cfg.Levels); err != nil {
		return nil, err
	}
	pass, err := runSamplePass(ctx, est, theta, x, cfg, passMarginal, "marginal coverage")
	if err != nil {
		return nil, err
	}
	r := marginalFromPass(pass, cfg)
	r.Dropped, r.Proposal = pass.dropped, pass.proposal
	return r, nil
}

func marginalFromPass(pass *samplePass, cfg RankConfig) *MarginalResult {
	n := len(pass.marginal)
	dim := len(pass.marginal[0])
	r := &MarginalResult{N: n, Levels: append([]float64(nil), cfg.Levels...), Coverage: make([][]float64, dim)}
	for d := range dim {
		r.Coverage[d] = make([]float64, len(cfg.Levels))
		for i := range n {
			rank := (float64(pass.marginal[i][d]) + pass.jitter[i][d]) / float64(cfg.Samples+1)
			for k, l := range cfg.Levels {
				if math.Abs(rank-0.5) <= l/2 {
					r.Coverage[d][k]++
				}
			}
		}
		for k := range cfg.Levels {
			r.Coverage[d][k] /= float64(n)
		}
	}
	r.Lower, r.Upper = BinomialBand(n, cfg.Levels, DefaultConfidence)
	r.SimLower, r.SimUpper = r.Simultaneous()
	return r
}

// Simultaneous returns the band simultaneous over all levels and parameters (see SimLower)
// that MIMEBundle and viz.MarginalCoverage judge by: the result's own, or, for a result built
// by hand without one, the band at DefaultConfidence computed afresh.
func (r *MarginalResult) Simultaneous() (lower, upper []float64) {
	if len(r.SimLower) == len(r.Levels) && len(r.SimUpper) == len(r.Levels) {
		return r.SimLower, r.SimUpper
	}
	cells := max(1, len(r.Coverage)*len(r.Levels))
	return BinomialBand(r.N, r.Levels, 1-(1-DefaultConfidence)/float64(cells))
}

// String is a text table, one row per parameter.
func (r *MarginalResult) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "marginal coverage of central intervals (%d pairs)\n%6s", r.N, "level")
	for _, l := range r.Levels {
		fmt.Fprintf(&b, " %5.2f", l)
	}
	for d, c := range r.Coverage {
		fmt.Fprintf(&b, "\nθ%-4d ", d+1)
		for _, v := range c {
			fmt.Fprintf(&b, " %5.3f", v)
		}
	}
	return b.String() + "\n" + droppedNote(r.Dropped) + proposalLine(r.Proposal)
}

// MIMEBundle shows the table as HTML and text. The HTML colours a coverage below the pointwise
// band vermillion and one above it blue, and sets in bold those outside the simultaneous band
// over all parameters and levels, the only ones that are evidence of miscalibration; a note
// under the table says so.
func (r *MarginalResult) MIMEBundle() map[string]any {
	var b strings.Builder
	fmt.Fprintf(&b, `<div><b>Marginal coverage</b> of central intervals, %d pairs<table style="font-size:85%%"><tr><th>level</th>`, r.N)
	for _, l := range r.Levels {
		fmt.Fprintf(&b, "<td>%.2f</td>", l)
	}
	b.WriteString("</tr>")
	slo, shi := r.Simultaneous()
	for d, c := range r.Coverage {
		fmt.Fprintf(&b, "<tr><th>θ%d</th>", d+1)
		for k, v := range c {
			fmt.Fprintf(&b, "<td%s>%.3f</td>", bandStyle(v, r.Lower[k], r.Upper[k], slo[k], shi[k]), v)
		}
		b.WriteString("</tr>")
	}
	fmt.Fprintf(&b, `</table><span style="font-size:80%%">vermillion below, blue above the pointwise %s band of one cell (a calibrated estimator leaves it in some cell by chance); bold: outside the simultaneous %s band over all %d cells (parameters × levels), evidence of miscalibration</span>%s</div>`,
		text.Percent(DefaultConfidence), text.Percent(DefaultConfidence), len(r.Coverage)*len(r.Levels), proposalNoteHTML(r.Proposal))
	return map[string]any{"text/html": b.String(), "text/plain": r.String()}
}

// bandStyle is the style of a coverage v against the pointwise band [lo, hi] and the
// simultaneous band [slo, shi].
func bandStyle(v, lo, hi, slo, shi float64) string {
	bold := ""
	if v < slo || v > shi {
		bold = ";font-weight:bold"
	}
	switch {
	case v < lo:
		return ` style="color:#D55E00` + bold + `"`
	case v > hi:
		return ` style="color:#0072B2` + bold + `"`
	}
	return ""
}

// SBCResult holds simulation-based calibration ranks (Talts et al. 2018) per parameter.
type SBCResult struct {
	Samples int       // posterior draws per pair, M: ranks lie in {0, …, M}
	Ranks   [][]int   // Ranks[d][i]: #{j : θⱼ,d < θ*_d} for pair i
	Bins    int       // bins of the uniformity test
	ChiSq   []float64 // χ² statistic of the binned ranks, per parameter
	PValues []float64 // p-value of the χ² uniformity test, per parameter
	// KSPValues is the p-value of the Kolmogorov–Smirnov test of the ranks, made continuous
	// as (rank + U)/(M + 1) with U ~ Uniform(0, 1), against Uniform(0, 1), per parameter (the
	// test of sbi's check_sbc).
	KSPValues []float64
	// Dropped counts the test pairs left out because θ or x held NaN or ±Inf.
	Dropped int
	// Proposal is the estimator's TrainingProposal (sbi.NPE.TrainingProposal) when it was
	// trained on parameters drawn from a proposal, not from its prior (Sequential's later
	// rounds); "" otherwise. String and MIMEBundle then note that over test pairs drawn from the
	// whole prior the check tests what the estimator was not trained for. The verdict does not
	// use it.
	Proposal string
}

// SBC computes simulation-based calibration ranks of each parameter and tests their uniformity
// with a χ² test on bins of equal probability (Talts et al. 2018). The number of bins divides
// M + 1 and keeps about 20 expected counts per bin: choose M + 1 with many divisors, e.g.
// M = 99, 199 or 999 (RankConfig's default of 1000 draws gives M + 1 = 1001 = 7·11·13).
// A small p-value says the marginals are miscalibrated. The p-values are one per parameter,
// not corrected for their number, and the result holds no verdict: SBCECDF(r, 0).Verdict()
// judges the ranks of all parameters at once against a band simultaneous over ranks and
// parameters, and viz.SBCRanks and viz.SBCECDF draw them. It holds M × Dim draws per worker,
// one pair at a time, and the result Dim ranks per pair (see RankConfig).
func SBC(est sbi.Amortized, theta, x *mat.Dense, cfg RankConfig) (*SBCResult, error) {
	return SBCContext(runenv.Context(), est, theta, x, cfg)
}

// MustSBC is SBC for notebook cells: it returns the result alone and panics with SBC's error.
func MustSBC(est sbi.Amortized, theta, x *mat.Dense, cfg RankConfig) *SBCResult {
	return safe.Must(SBC(est, theta, x, cfg))
}

// SBCContext is SBC stopped by ctx instead of the host's context (runenv.Context).
func SBCContext(ctx context.Context, est sbi.Amortized, theta, x *mat.Dense, cfg RankConfig) (*SBCResult, error) {
	cfg = cfg.withDefaults()
	pass, err := runSamplePass(ctx, est, theta, x, cfg, passMarginal, "SBC")
	if err != nil {
		return nil, err
	}
	r := sbcFromPass(pass, cfg.Samples)
	r.Dropped, r.Proposal = pass.dropped, pass.proposal
	return r, nil
}

func sbcFromPass(pass *samplePass, m int) *SBCResult {
	n := len(pass.marginal)
	dim := len(pass.marginal[0])
	bins := sbcBins(n, m)
	r := &SBCResult{Samples: m, Ranks: make([][]int, dim), Bins: bins, ChiSq: make([]float64, dim),
		PValues: make([]float64, dim), KSPValues: make([]float64, dim)}
	u := make([]float64, n)
	for d := range dim {
		r.Ranks[d] = make([]int, n)
		counts := make([]int, bins)
		for i := range n {
			k := pass.marginal[i][d]
			r.Ranks[d][i] = k
			counts[k*bins/(m+1)]++
			u[i] = (float64(k) + pass.jitter[i][d]) / float64(m+1)
		}
		r.ChiSq[d], r.PValues[d] = chiSquareUniform(counts)
		r.KSPValues[d] = KSUniformPValue(u)
	}
	return r
}

// sbcBins is the largest divisor of m+1 that leaves at least 20 expected counts per bin
// (at least 2 bins when m ≥ 1).
func sbcBins(n, m int) int {
	best := 1
	for b := 2; b <= m+1; b++ {
		if (m+1)%b == 0 && n/b >= 20 {
			best = b
		}
	}
	if best == 1 && m >= 1 {
		best = m + 1
		for b := 2; b <= m+1; b++ {
			if (m+1)%b == 0 {
				best = b
				break
			}
		}
	}
	return best
}

// String is a one-line summary per parameter.
func (r *SBCResult) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "SBC ranks (%d pairs, %d draws, χ² on %d bins)\n", len(r.Ranks[0]), r.Samples, r.Bins)
	for d := range r.Ranks {
		fmt.Fprintf(&b, "θ%d: χ² %.1f, p-value %.3g; KS p-value %.3g\n", d+1, r.ChiSq[d], r.PValues[d], r.KSPValues[d])
	}
	return b.String() + droppedNote(r.Dropped) + proposalLine(r.Proposal)
}

// sbcMarkLevel is the χ² p-value below which the SBC table marks a parameter.
const sbcMarkLevel = 0.01

// MIMEBundle shows the per-parameter test as HTML and text; the HTML marks a χ² p-value below
// 0.01 in vermillion and writes the p-values with the digits that keep them on their side of it.
func (r *SBCResult) MIMEBundle() map[string]any {
	var b strings.Builder
	ps, _ := pvalue.FormatAll(r.PValues, sbcMarkLevel)
	fmt.Fprintf(&b, `<div><b>SBC</b> — %d pairs, %d draws, χ² test on %d bins<table style="font-size:85%%"><tr><th></th><th>χ²</th><th>p-value (marked below %g)</th><th>KS p-value</th></tr>`, len(r.Ranks[0]), r.Samples, r.Bins, sbcMarkLevel)
	for d := range r.Ranks {
		style := ""
		if r.PValues[d] < sbcMarkLevel {
			style = ` style="color:#D55E00"`
		}
		fmt.Fprintf(&b, "<tr><th>θ%d</th><td>%.1f</td><td%s>%s</td><td>%.3g</td></tr>", d+1, r.ChiSq[d], style, ps[d], r.KSPValues[d])
	}
	b.WriteString("</table>" + proposalNoteHTML(r.Proposal) + "</div>")
	return map[string]any{"text/html": b.String(), "text/plain": r.String()}
}
