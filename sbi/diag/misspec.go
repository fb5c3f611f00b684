package diag

import (
	"fmt"
	"html"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/internal/pvalue"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/internal/mmd"
	"github.com/gosbi/gosbi/sbi/internal/pairs"
	"github.com/gosbi/gosbi/sbi/internal/safe"
)

// MisspecConfig configures Misspecification. The zero value is the default.
type MisspecConfig struct {
	Seed        uint64
	Reference   int     // simulations the observation is compared with; 0 means 1000
	Calibration int     // further simulations that calibrate the p-value; 0 means 1000
	Alpha       float64 // level of the verdict; 0 means 0.05
}

// MisspecResult is the test of whether an observation could have come from the simulator.
type MisspecResult struct {
	Statistic   float64   // MMD² of the observation (its summary) against the reference
	PValue      float64   // (1 + #{Null ≥ Statistic})/(Calibration + 1)
	Null        []float64 // the statistics of the calibration simulations, increasing
	Reference   int
	Calibration int
	Bandwidth   float64 // σ of the Gaussian kernel (median heuristic on the reference)
	Space       string  // "standardized x" or "embedding": where distances are measured
	Alpha       float64
	// Dropped is the number of simulations left out for NaN or ±Inf, and, for an estimator
	// that reads NaN padding, for holding another number of values before their padding than
	// the observation.
	Dropped int
}

// Misspecification tests whether the observation xo lies in the distribution of the
// simulations x (rows, drawn from the prior predictive): if it does not, no estimator trained on such simulations has seen data like it, and
// its posterior at xo is an extrapolation (the model may be misspecified, or the observation
// preprocessed differently from the simulations).
//
// The statistic is the squared maximum mean discrepancy between the point xo and a reference
// sample of Reference simulations, with a Gaussian kernel whose bandwidth is the median
// distance between reference points (see package sbi/internal/mmd for the formula), in the
// space the estimator conditions on: est's summaries when it is an sbi.Summarizer (NPE and NRE:
// x standardized with the training statistics, then embedded), otherwise each column of x
// standardized by the simulations' mean and standard deviation (est may be nil). Its null
// distribution is that of Calibration further simulations, kept out of the reference: the
// p-value (1 + #{calibration statistics ≥ observed})/(Calibration + 1) is exact when xo comes
// from the simulator and is exchangeable with the calibration simulations (BayesFlow's and
// sbi's misspecification checks use MMD the same way in summary space). In an embedding's
// space that holds only for simulations the embedding was not fitted to: held-out or fresh
// simulations. The training simulations of an estimator with an embedding may lie closer
// together in its space than a new observation does, and calibrated on them the check's level
// is not guaranteed (it may reject observations from the simulator more often than Alpha);
// the function cannot tell which simulations x are, so pass held-out ones. An estimator
// without an embedding, or no estimator, only standardizes x, and its training simulations
// serve. (sbi's CheckObservation calibrates on the validation split for the same reason.)
// With fewer than Reference + Calibration simulations the two parts share them
// half and half. It returns an error for bad input, fewer than 40 finite simulations, or
// summaries that are not a row of finite values per row of x (a NaN summary leaves the
// statistic undefined: no verdict can be drawn from it).
//
// For an estimator that reads NaN padding (a pairs.Unpadder: sbi.AmortizedTrials, observations
// of a varying number of i.i.d. trials), the observation is compared by the values before its
// padding, its k trials, with the simulations of exactly k trials: the reference set is those
// simulations alone, so the p-value stays exact whatever decides the number of trials (a
// stopping rule that reads the trials, such as "stop after the first trial above c", makes
// the first k trials of a longer simulation distributed unlike an observation of k trials).
// Simulations of another number of trials are left out (Dropped), and x is standardized (the
// estimator's summaries, where it has any, read whole rows). When fewer than 40 simulations
// hold exactly k trials the check cannot decide, and the error says "inconclusive" and why; an
// observation or simulation the estimator cannot read is an error naming it.
func Misspecification(est sbi.Amortized, x *mat.Dense, xo []float64, cfg MisspecConfig) (*MisspecResult, error) {
	if x == nil {
		return nil, fmt.Errorf("diag: misspecification check needs simulations, got nil")
	}
	n, dx := x.Dims()
	if len(xo) != dx {
		return nil, fmt.Errorf("diag: misspecification check: the observation has %d values, the simulations %d", len(xo), dx)
	}
	if u, ok := est.(pairs.Unpadder); ok {
		var err error
		if x, xo, err = sameTrials(u, x, xo); err != nil {
			return nil, fmt.Errorf("diag: misspecification check: %w", err)
		}
		est = nil // its summaries, where it has any, read whole rows
	}
	if !pairs.AllFinite(xo) {
		return nil, fmt.Errorf("diag: misspecification check: the observation holds NaN or infinite values: %v", xo)
	}
	if cfg.Reference < 0 || cfg.Calibration < 0 || !(cfg.Alpha >= 0 && cfg.Alpha < 1) {
		return nil, fmt.Errorf("diag: misspecification check: Reference %d, Calibration %d, Alpha %v: expected counts ≥ 0 and a level in (0, 1) (0 takes the default)", cfg.Reference, cfg.Calibration, cfg.Alpha)
	}
	if cfg.Reference == 0 {
		cfg.Reference = 1000
	}
	if cfg.Calibration == 0 {
		cfg.Calibration = 1000
	}
	if cfg.Alpha == 0 {
		cfg.Alpha = 0.05
	}
	var keep []int
	rows, dx := x.Dims() // fewer rows, and unpadded, for an estimator that reads padding
	for i := range rows {
		if pairs.AllFinite(x.RawRowView(i)) {
			keep = append(keep, i)
		}
	}
	if len(keep) < 2*minCalibrationPoints+2 {
		return nil, fmt.Errorf("diag: misspecification check needs at least %d finite simulations, got %d", 2*minCalibrationPoints+2, len(keep))
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6d6973))
	rng.Shuffle(len(keep), func(i, j int) { keep[i], keep[j] = keep[j], keep[i] })
	nr, nc := cfg.Reference, cfg.Calibration
	if nr+nc > len(keep) {
		nr = len(keep) / 2
		nc = len(keep) - nr
	}
	ref, cal := rowsAt(x, keep[:nr]), rowsAt(x, keep[nr:nr+nc])
	obs := mat.NewDense(1, dx, append([]float64(nil), xo...))
	space := "standardized x"
	if s, ok := est.(sbi.Summarizer); ok {
		err := safe.Call("diag: misspecification check: the estimator's summaries", func() error {
			ref, cal, obs = s.Summaries(ref), s.Summaries(cal), s.Summaries(obs)
			return nil
		})
		if err != nil {
			return nil, err
		}
		if err := checkSummaries(ref, cal, obs, nr, nc); err != nil {
			return nil, err
		}
		space = "embedding"
		if _, w := ref.Dims(); w == dx {
			space = "standardized x" // an estimator without an embedding standardizes x
		}
	} else {
		z, err := fitZ(ref)
		if err != nil {
			return nil, fmt.Errorf("diag: misspecification check: the simulations' x: %w", err)
		}
		ref, cal, obs = z.apply(ref), z.apply(cal), z.apply(obs)
	}
	r, err := mmd.New(ref, cal)
	if err != nil {
		return nil, fmt.Errorf("diag: misspecification check: %w", err)
	}
	res := &MisspecResult{Reference: nr, Calibration: nc, Bandwidth: r.Bandwidth(), Space: space,
		Alpha: cfg.Alpha, Dropped: n - len(keep), Null: r.Calibration()}
	res.Statistic = r.Statistic(obs.RawRowView(0))
	res.PValue = r.PValue(res.Statistic)
	return res, nil
}

// sameTrials returns the values of the observation xo before its padding, as u reads them,
// and the rows of x that hold exactly as many values before their padding, unpadded. Its error
// names the observation or the simulation u cannot read, and says "inconclusive" when fewer
// than the check needs hold that many values.
func sameTrials(u pairs.Unpadder, x *mat.Dense, xo []float64) (*mat.Dense, []float64, error) {
	p, err := u.Unpadded(xo)
	if err != nil {
		return nil, nil, fmt.Errorf("the observation: %w", err)
	}
	if len(p) == 0 {
		return nil, nil, fmt.Errorf("the observation holds no value before its padding (all NaN), expected at least one trial")
	}
	w := len(p)
	var rows []int
	n, _ := x.Dims()
	for i := range n {
		q, err := u.Unpadded(x.RawRowView(i))
		if err != nil {
			return nil, nil, fmt.Errorf("simulation %d: %w", i, err)
		}
		if len(q) == w {
			rows = append(rows, i)
		}
	}
	if need := 2*minCalibrationPoints + 2; len(rows) < need {
		return nil, nil, fmt.Errorf("inconclusive: %d of the %d simulations hold as many values before their padding as the observation (%d: the same number of trials), the reference of an observation of that many trials, and the check needs at least %d: simulate more, or compare observations of a number of trials the simulator makes often",
			len(rows), n, w, need)
	}
	same := mat.NewDense(len(rows), w, nil)
	for k, i := range rows {
		copy(same.RawRowView(k), x.RawRowView(i)[:w])
	}
	return same, append([]float64(nil), p...), nil
}

// checkSummaries checks what an estimator's Summaries returned for the nr reference, nc
// calibration simulations and the observation: a row per row of x, one width, finite values.
// A NaN summary would give a NaN statistic, which the p-value rule counts as beyond every
// calibration statistic (or every calibration statistic as NaN), a verdict from no evidence.
func checkSummaries(ref, cal, obs *mat.Dense, nr, nc int) error {
	const what = "diag: misspecification check: the estimator's Summaries"
	if ref == nil || cal == nil || obs == nil {
		return fmt.Errorf("%s returned nil", what)
	}
	r, w := ref.Dims()
	c, wc := cal.Dims()
	o, wo := obs.Dims()
	if r != nr || c != nc || o != 1 || wc != w || wo != w {
		return fmt.Errorf("%s returned %d×%d, %d×%d and %d×%d for %d, %d and 1 rows: expected a row per row of x and one width",
			what, r, w, c, wc, o, wo, nr, nc)
	}
	if !pairs.AllFinite(obs.RawRowView(0)) {
		return fmt.Errorf("%s: the summary of the observation holds NaN or ±Inf values (%v), so its distance to the simulations is undefined; "+
			"the embedding fails on this observation (check its scale and preprocessing, or run the check without the estimator, in standardized x)", what, obs.RawRowView(0))
	}
	for _, part := range []*mat.Dense{ref, cal} {
		if i, bad := firstNonFiniteRow(part); bad {
			return fmt.Errorf("%s: the summaries of %d of the %d simulations used hold NaN or ±Inf values (one: %v), so the statistics are undefined; "+
				"the embedding fails on these simulations (check the estimator's training, or run the check without the estimator, in standardized x)",
				what, nonFiniteRows(ref)+nonFiniteRows(cal), r+c, part.RawRowView(i))
		}
	}
	return nil
}

// nonFiniteRows counts the rows of a that hold NaN or ±Inf.
func nonFiniteRows(a *mat.Dense) int {
	n, _ := a.Dims()
	bad := 0
	for i := range n {
		if !pairs.AllFinite(a.RawRowView(i)) {
			bad++
		}
	}
	return bad
}

// Reject reports whether the observation is atypical of the simulations at level Alpha.
func (r *MisspecResult) Reject() bool { return r.PValue <= r.Alpha }

// CanReject reports whether the calibration simulations can give a p-value as small as Alpha:
// the smallest p-value is 1/(Calibration + 1). When they cannot, the test rejects no
// observation and Verdict says inconclusive.
func (r *MisspecResult) CanReject() bool { return 1/float64(r.Calibration+1) <= r.Alpha }

// Verdict says what the test supports and what it means for a posterior at the observation:
// "atypical of the simulations: …", "consistent with the simulations: …", or "inconclusive: …"
// when too few calibration simulations can reach the level (CanReject).
func (r *MisspecResult) Verdict() string {
	if !r.CanReject() {
		least, alpha := pvalue.Format(1/float64(r.Calibration+1), r.Alpha)
		p, _ := pvalue.Format(r.PValue, r.Alpha)
		return fmt.Sprintf("inconclusive: with %d calibration simulations the smallest p-value is %s > α = %s, so no observation can be found atypical (MMD² %.3g in %s, p = %s); use at least %d",
			r.Calibration, least, alpha, r.Statistic, r.Space, p, int(math.Ceil(1/r.Alpha-1e-9))-1)
	}
	p, alpha := pvalue.Format(r.PValue, r.Alpha)
	if r.Reject() {
		beyond := r.Calibration + 1 - int(math.Round(r.PValue*float64(r.Calibration+1)))
		return fmt.Sprintf("atypical of the simulations: the observation is farther from them (MMD² %.3g in %s) than %d of %d further simulations%s are (p = %s ≤ α = %s); the simulator under the prior rarely produces data like it (misspecification, or preprocessing that differs), so an estimator trained on such simulations extrapolates here and its posterior is not to be trusted",
			r.Statistic, r.Space, beyond, r.Calibration, r.heldOut(), p, alpha)
	}
	return fmt.Sprintf("consistent with the simulations: MMD² %.3g in %s, p = %s > α = %s against %d further simulations%s (a test of one observation sees gross mismatches, not small ones)",
		r.Statistic, r.Space, p, alpha, r.Calibration, r.heldOut())
}

// heldOut is what the verdict says of the calibration simulations in an embedding's space:
// the level holds only if the embedding was not fitted to them.
func (r *MisspecResult) heldOut() string {
	if r.Space != "embedding" {
		return ""
	}
	return " (the level holds if they are held out from the estimator's training)"
}

// String is a text summary.
func (r *MisspecResult) String() string {
	return fmt.Sprintf("misspecification check (%d reference, %d calibration simulations, bandwidth %.3g): %s",
		r.Reference, r.Calibration, r.Bandwidth, r.Verdict())
}

// MIMEBundle shows the result as HTML and text; viz.Misspecification draws the statistic
// against its null distribution. The table's p-value is written as the verdict writes it,
// with the digits that keep it on its side of Alpha.
func (r *MisspecResult) MIMEBundle() map[string]any {
	style := ""
	if r.Reject() {
		style = ` style="color:#D55E00"`
	}
	p, _ := pvalue.Format(r.PValue, r.Alpha)
	h := fmt.Sprintf(`<div><b>Misspecification check</b>: <i%s>%s</i><table style="font-size:90%%"><tr><th>MMD²</th><td>%.4g</td></tr><tr><th>null 95%% quantile</th><td>%.4g</td></tr><tr><th>p-value</th><td>%s</td></tr><tr><th>simulations</th><td>%d reference, %d calibration</td></tr></table></div>`,
		style, html.EscapeString(r.Verdict()), r.Statistic, quantileOf(r.Null, 0.95), p, r.Reference, r.Calibration)
	return map[string]any{"text/html": h, "text/plain": r.String()}
}
