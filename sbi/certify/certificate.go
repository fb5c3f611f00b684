package certify

import (
	"fmt"
	"html"
	"math"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/internal/pvalue"
	"github.com/gosbi/gosbi/internal/text"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/calib"
	"github.com/gosbi/gosbi/sbi/diag"
)

// Certificate is the result of Certify: the chosen posterior, the verdict and every number it
// rests on. Its verdict comes from the final test set alone (Final); the diagnoses of the steps
// before chose what was tested and are shown, not counted.
type Certificate struct {
	Target Target

	// Estimator is the amortized posterior chosen (the best found, certified or not); Chosen
	// names it. Conformal, when the conformal remedy was chosen, holds one calibration per
	// target level (Conformal[k] for Target.Levels[k]): the certified regions are then
	// Conformal[k].Region(x), not the HPD regions of Estimator.
	Estimator sbi.Amortized
	Chosen    string
	Conformal []*calib.Conformal

	// Final is the verdict on the final test set; After its coverage, Before the coverage of the
	// first estimator on its check set (nil without remedies). SBC and TARP are computed on the
	// final test set for the chosen estimator's posterior (not its conformal regions) and shown
	// beside the verdict, not part of it.
	Final         *Decision
	Before, After *diag.CoverageResult
	SBC           *diag.SBCResult
	TARP          *diag.TARPResult

	Steps    []Step   // what was done, in order: the first estimator, remedies, the final test, then per observation
	Remedies []Remedy // the remedies allowed, in order
	// Tried counts the remedies taken up before the final test, those skipped for a stated
	// reason included (their steps' notes begin "skipped:"; Sentence, RemediesRun and
	// SkippedRemedies count them apart);
	// score calibrations, per observation after it, are counted in the observations.
	Tried        int
	Observations []ObservationCheck // one per observation given, in order
	Notes        []string           // what the budget left out or warns of, and why

	Budget   Budget
	Seed     uint64
	Versions string // Go and gosbi versions of the run
	Elapsed  time.Duration

	calTheta, calX *mat.Dense // the conformal calibration pairs (for Save)
}

// ObservationCheck is the certificate's word on one observation: the misspecification check,
// the local test (L-C2ST) where it ran, the score calibration where it ran, and the verdict
// with its claim (see Claim).
type ObservationCheck struct {
	X       []float64
	Misspec *diag.MisspecResult // nil when the check could not run
	// Local is L-C2ST of the chosen estimator at X, on held-out simulations; nil when it did
	// not run. When it rejects, the observation is not certified ("local test rejects").
	Local *diag.LC2STResult `json:",omitempty"`
	// ScoreCal is the score calibration at X and its test; nil when it did not run. Posterior
	// is then the adjusted posterior, and Claim is ClaimLocal.
	ScoreCal *ScoreCalibrated `json:",omitempty"`
	Claim    Claim            `json:",omitempty"` // what Verdict is about; "" for a refused observation
	Verdict  Verdict
	Reason   string
}

// Verdict is the global verdict: that of the final test.
func (c *Certificate) Verdict() Verdict { return c.Final.Verdict }

// Certified reports whether the final test certified the target.
func (c *Certificate) Certified() bool { return c.Final.Verdict == Certified }

// Posterior is the posterior at observation i (0-based), whatever its verdict: the chosen
// estimator's, or where the observation was score-calibrated the adjusted one (the map applied
// to the estimator's draws). Check Observations[i].Verdict and Claim before trusting it.
func (c *Certificate) Posterior(i int) (sbi.Posterior, error) {
	if i < 0 || i >= len(c.Observations) {
		return nil, fmt.Errorf("certify: observation %d does not exist; the certificate has %d", i, len(c.Observations))
	}
	o := c.Observations[i]
	if o.ScoreCal != nil {
		if err := o.ScoreCal.Map.check(); err != nil {
			return nil, err
		}
		return c.adjusted(o.ScoreCal).Posterior(o.X), nil
	}
	return c.Estimator.Posterior(o.X), nil
}

func (c *Certificate) adjusted(s *ScoreCalibrated) *scoreAdjusted {
	return &scoreAdjusted{base: c.Estimator, m: s.Map, draws: s.Draws, seed: s.CentreSeed}
}

// Region is the certified credible region of level Target.Levels[k] at observation i when the
// conformal remedy was chosen; otherwise the regions are the HPD regions of Posterior(i) and
// Region returns an error saying so.
func (c *Certificate) Region(i, k int) (*calib.Region, error) {
	if c.Conformal == nil {
		return nil, fmt.Errorf("certify: the certified regions are the HPD regions of the posterior (no conformal remedy was chosen); use Posterior(%d)", i)
	}
	if k < 0 || k >= len(c.Conformal) {
		return nil, fmt.Errorf("certify: level index %d does not exist; the target has %d levels", k, len(c.Conformal))
	}
	if i < 0 || i >= len(c.Observations) {
		return nil, fmt.Errorf("certify: observation %d does not exist; the certificate has %d", i, len(c.Observations))
	}
	if c.Observations[i].ScoreCal != nil {
		return nil, fmt.Errorf("certify: observation %d was score-calibrated: its verdict is about the HPD regions of Posterior(%d), not the conformal regions", i, i)
	}
	return c.Conformal[k].Region(c.Observations[i].X), nil
}

// Sentence is the verdict in one sentence, with the numbers it rests on.
func (c *Certificate) Sentence() string {
	var what string
	switch c.Final.Verdict {
	case Certified:
		what = "Certified"
	case NotCertified:
		what = "Not certified"
	default:
		what = "Inconclusive"
	}
	return fmt.Sprintf("%s: %s (%s, after %s, judged once on a test set of %d simulations).",
		what, c.Final.Reason, c.Chosen, c.triedPhrase(), c.Final.N)
}

// triedPhrase says how many remedies ran before the final test and which were skipped, e.g.
// "1 remedy tried and 2 skipped (more simulations, coverage regularizer)".
func (c *Certificate) triedPhrase() string {
	skipped := c.SkippedRemedies()
	ran := c.RemediesRun()
	out := fmt.Sprintf("%d %s tried", ran, text.Plural(ran, "remedy", "remedies"))
	if len(skipped) > 0 {
		out += fmt.Sprintf(" and %d skipped (%s)", len(skipped), strings.Join(skipped, ", "))
	}
	return out
}

// RemediesRun is the number of remedies that ran before the final test: Tried less those
// skipped (SkippedRemedies), as Sentence counts them.
func (c *Certificate) RemediesRun() int { return c.Tried - len(c.SkippedRemedies()) }

// SkippedRemedies names, in order, the remedies before the final test that were taken up but
// skipped for a stated reason (their steps' notes begin "skipped" and say why; a given
// estimator, for one, cannot be retrained). Tried counts them with those that ran.
func (c *Certificate) SkippedRemedies() []string {
	var out []string
	for _, s := range c.Steps {
		switch Remedy(s.Name) {
		case RemedyMoreSimulations, RemedyRegularizer, RemedyConformal:
			if strings.HasPrefix(s.Note, "skipped") {
				out = append(out, s.Name)
			}
		}
	}
	return out
}

// String is a text summary: the sentence, the table of levels, the steps and the observations.
func (c *Certificate) String() string {
	var b strings.Builder
	b.WriteString("Certificate: " + c.Sentence() + "\n")
	fmt.Fprintf(&b, "  target: %s\n", c.Target)
	fmt.Fprintf(&b, "  power: %d test pairs certify an exactly calibrated posterior with probability ≥ %.3f\n", c.Final.N, c.Final.Power)
	fmt.Fprintf(&b, "  %-7s %-9s %-12s %-18s %s\n", "level", "coverage", "covered", "interval", "status")
	for _, l := range c.Final.Checks {
		fmt.Fprintf(&b, "  %-7.3g %-9.3f %-12s [%.3f, %.3f]    %s\n", l.Level, l.Coverage,
			fmt.Sprintf("%d/%d", l.Count, l.N), l.Lower, l.Upper, l.Status)
	}
	if c.SBC != nil {
		fmt.Fprintf(&b, "  SBC (shown, not part of the verdict): KS p-values %s on %d draws per pair\n", fmtP(c.SBC.KSPValues), c.SBC.Samples)
	}
	if c.TARP != nil {
		fmt.Fprintf(&b, "  TARP (shown, not part of the verdict): ATC %.3g, KS p-value %.3g\n", c.TARP.ATC, c.TARP.KSPValue)
	}
	if c.Conformal != nil {
		fmt.Fprintf(&b, "  %s\n", conformalNote)
	}
	b.WriteString("  steps:\n")
	for _, s := range c.Steps {
		fmt.Fprintf(&b, "    %s (%d simulations, %.1f s): %s", s.Name, s.Simulations, s.Elapsed.Seconds(), s.Note)
		if s.Decision != nil {
			fmt.Fprintf(&b, "; %s", s.Decision.Verdict)
		}
		b.WriteString("\n")
	}
	for i, o := range c.Observations {
		claim := ""
		if o.Claim != "" {
			claim = " [" + string(o.Claim) + "]"
		}
		fmt.Fprintf(&b, "  observation %d: %s%s: %s\n", i, o.Verdict, claim, o.Reason)
		if o.Local != nil {
			fmt.Fprintf(&b, "    local test: %s\n", localCell(o.Local))
		}
		if o.ScoreCal != nil {
			fmt.Fprintf(&b, "    score calibration: %s\n", scoreCalCell(o.ScoreCal))
		}
	}
	if hasLocal(c.Observations) {
		fmt.Fprintf(&b, "  %s\n", localNote)
	}
	for _, n := range c.Notes {
		fmt.Fprintf(&b, "  note: %s\n", n)
	}
	bu := c.Budget
	fmt.Fprintf(&b, "  budget: %s\n", bu)
	fmt.Fprintf(&b, "  seed %d; %s; %.1f s\n", c.Seed, c.Versions, c.Elapsed.Seconds())
	return b.String()
}

func fmtP(ps []float64) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = fmt.Sprintf("%.3g", p)
	}
	return "[" + strings.Join(s, " ") + "]"
}

// MIMEBundle shows the certificate as HTML (verdict, the table of levels with their intervals,
// coverage before and after, SBC, the steps with their cost, the observations, budget, seed and
// versions) and as text.
func (c *Certificate) MIMEBundle() map[string]any {
	var b strings.Builder
	e := html.EscapeString
	color := map[Verdict]string{Certified: "#1a7f37", NotCertified: "#cf222e", Inconclusive: "#9a6700"}[c.Final.Verdict]
	fmt.Fprintf(&b, `<div><p style="font-size:110%%"><b style="color:%s">%s</b></p>`, color, e(c.Sentence()))
	fmt.Fprintf(&b, `<p>Target: %s. Power: %d test pairs certify an exactly calibrated posterior with probability ≥ %.3f.</p>`,
		e(c.Target.String()), c.Final.N, c.Final.Power)
	b.WriteString(`<table style="font-size:90%"><tr><th>level</th><th>coverage before</th><th>coverage (final test)</th><th>covered</th><th>interval</th><th>target</th><th>status</th></tr>`)
	for _, l := range c.Final.Checks {
		before := "—"
		if c.Before != nil {
			if k := levelIndex(c.Before.Levels, l.Level); k >= 0 {
				before = fmt.Sprintf("%.3f", c.Before.Coverage[k])
			}
		}
		lo, hi := c.Target.band(l.Level)
		fmt.Fprintf(&b, `<tr><td>%.3g</td><td>%s</td><td>%.3f</td><td>%d/%d</td><td>[%.3f, %.3f]</td><td>[%.3f, %.3f]</td><td>%s</td></tr>`,
			l.Level, before, l.Coverage, l.Count, l.N, l.Lower, l.Upper, lo, hi, e(string(l.Status)))
	}
	b.WriteString(`</table>`)
	b.WriteString(coverageSVG(c.Target, c.Before, c.Final))
	if c.SBC != nil {
		fmt.Fprintf(&b, `<p>SBC on the final test set (shown, not part of the verdict): KS p-values %s, %d draws per pair.</p>`, e(fmtP(c.SBC.KSPValues)), c.SBC.Samples)
	}
	if c.TARP != nil {
		fmt.Fprintf(&b, `<p>TARP on the final test set (shown, not part of the verdict): ATC %.3g (&lt; 0 over-confident, &gt; 0 conservative), KS p-value %.3g.</p>`, c.TARP.ATC, c.TARP.KSPValue)
	}
	if c.Conformal != nil {
		fmt.Fprintf(&b, `<p>%s</p>`, e(conformalNote))
	}
	b.WriteString(`<p><b>Steps</b></p><table style="font-size:90%"><tr><th>step</th><th>simulations</th><th>time</th><th>against the target</th><th>test of exact calibration (simultaneous band)</th><th>note</th></tr>`)
	for _, s := range c.Steps {
		d, band := "—", "—"
		if s.Decision != nil {
			d = string(s.Decision.Verdict)
		}
		if s.Coverage != nil {
			band = s.Coverage.Verdict()
		}
		fmt.Fprintf(&b, `<tr><td>%s</td><td>%d</td><td>%.1f s</td><td>%s</td><td style="text-align:left">%s</td><td style="text-align:left">%s</td></tr>`,
			e(s.Name), s.Simulations, s.Elapsed.Seconds(), e(d), e(band), e(s.Note))
	}
	b.WriteString(`</table><p style="font-size:90%">The verdict is the test against the target (is the coverage within the tolerance?); the band test asks whether the coverage is consistent with exact calibration and is shown for reference only: a band that does not reject is not evidence of calibration.</p>`)
	if len(c.Observations) > 0 {
		b.WriteString(`<p><b>Observations</b></p><table style="font-size:90%"><tr><th>#</th><th>verdict</th><th>claim</th><th>misspecification</th><th>local test (L-C2ST)</th><th>score calibration</th><th>why</th></tr>`)
		for i, o := range c.Observations {
			mis, local, score := "—", "not run", "—"
			if o.Misspec != nil {
				ps, as := pvalue.Format(o.Misspec.PValue, o.Misspec.Alpha)
				mis = fmt.Sprintf("p = %s (α = %s)", ps, as)
			}
			if o.Local != nil {
				local = localCell(o.Local)
			}
			if o.ScoreCal != nil {
				score = scoreCalCell(o.ScoreCal)
			}
			claim := string(o.Claim)
			if claim == "" {
				claim = "—"
			}
			fmt.Fprintf(&b, `<tr><td>%d</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td style="text-align:left">%s</td></tr>`,
				i, e(string(o.Verdict)), e(claim), e(mis), e(local), e(score), e(o.Reason))
		}
		b.WriteString(`</table>`)
		if hasLocal(c.Observations) {
			fmt.Fprintf(&b, `<p style="font-size:90%%">%s</p>`, e(localNote))
		}
		if hasScoreCal(c.Observations) {
			fmt.Fprintf(&b, `<p style="font-size:90%%">%s</p>`, e(scoreCalNote))
		}
	}
	for _, n := range c.Notes {
		fmt.Fprintf(&b, `<p style="font-size:90%%">Note: %s</p>`, e(n))
	}
	bu := c.Budget
	fmt.Fprintf(&b, `<p style="font-size:90%%">Budget: %s. Seed %d; %s; %.1f s.</p></div>`,
		e(bu.String()), c.Seed, e(c.Versions), c.Elapsed.Seconds())
	return map[string]any{"text/html": b.String(), "text/plain": c.String()}
}

// localCell is the local test's numbers in a few words.
func localCell(r *diag.LC2STResult) string {
	what := "no evidence against the posterior here"
	switch {
	case r.Reject():
		what = "rejects"
	case r.Outside:
		what = "inconclusive (outside its calibration simulations)"
	case 1/float64(len(r.Null)+1) > r.Alpha:
		what = "inconclusive (too few null classifiers)"
	}
	ps, as := pvalue.Format(r.PValue, r.Alpha)
	return fmt.Sprintf("%s: %s %.3g, p = %s at level %s (%d null classifiers, %d held-out pairs)",
		what, r.Statistic, r.Value, ps, as, len(r.Null), r.N)
}

// scoreCalCell is the score calibration's test in a few words.
func scoreCalCell(s *ScoreCalibrated) string {
	d := s.Decision
	worst, before := 0.0, 0.0
	for _, l := range d.Checks {
		if math.Abs(l.Coverage-l.Level) > math.Abs(worst) {
			worst = l.Coverage - l.Level
			if j := levelIndex(s.Before.Levels, l.Level); j >= 0 {
				before = s.Before.Coverage[j] - l.Level
			}
		}
	}
	out := fmt.Sprintf("%s on %d local pairs (largest deviation %+.3f; %+.3f before the map), %d datasets", d.Verdict, d.N, worst, before, s.Datasets)
	if s.Local != nil {
		out += "; local test of the adjusted posterior: " + localCell(s.Local)
	}
	return out
}

func hasLocal(obs []ObservationCheck) bool {
	for _, o := range obs {
		if o.Local != nil {
			return true
		}
	}
	return false
}

func hasScoreCal(obs []ObservationCheck) bool {
	for _, o := range obs {
		if o.ScoreCal != nil {
			return true
		}
	}
	return false
}

const localNote = "The local test (L-C2ST, Linhart et al. 2023) asks at each observation whether the estimator's posterior there differs from the true posterior: a classifier trained on held-out simulations tells its draws from the true parameters, and its p-value against classifiers trained on label-randomized pairs is exact under the null (the estimator is the true posterior everywhere). At an observation where it rejects at its level, the observation is not certified; where it does not reject, there is no evidence against the posterior there, which is not a proof that it is right."

const scoreCalNote = "Score calibration (Bon et al.) adjusts the posterior at one observation by an affine map fitted on data simulated near it. Its verdict is local: the coverage of the adjusted regions over θ from the posterior at the observation inflated about its mean and data simulated from it, on fresh pairs — not the expected coverage over the prior predictive of the global verdict, and not coverage conditional on the observation itself."

// String says how the budget was split and what was drawn.
func (b Budget) String() string {
	s := fmt.Sprintf("%d simulations (training %d, %s of %d reserved, final test %d", b.Total, b.Train, text.Count(b.CheckSets, "check set"), b.Check, b.Test)
	if b.More > 0 {
		s += fmt.Sprintf(", reserve for more simulations %d", b.More)
	}
	if b.Conformal > 0 {
		s += fmt.Sprintf(", conformal calibration %d", b.Conformal)
	}
	if b.Reference > 0 {
		s += fmt.Sprintf(", misspecification reference %d", b.Reference)
	}
	if b.Local > 0 {
		s += fmt.Sprintf(", local test %d", b.Local)
	}
	if b.ScoreCalObservations > 0 {
		s += fmt.Sprintf(", score calibration %d per observation for %d", b.ScoreCal, b.ScoreCalObservations)
	}
	return s + fmt.Sprintf("); drawn %d, failed %d", b.Used, b.Dropped)
}

const conformalNote = "What is certified: the conformal regions {θ : −log q(θ|x) ≤ τ_L} (Region), one per target level; draws from Posterior are not recalibrated, and SBC and TARP judge those draws."
