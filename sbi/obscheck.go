package sbi

import (
	"errors"
	"fmt"
	"html"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/internal/mmd"
)

// An estimator is trained on simulations; at an observation far from all of them its output
// is an extrapolation that no loss ever checked. So every trained NPE and NRE keeps a small
// reservoir of the summaries of its training simulations (x standardized, then embedded when
// the estimator has an embedding: what the network conditions on), and forming a posterior
// checks the observation against it with the squared maximum mean discrepancy of one point
// against the reservoir (Gaussian kernel, median-heuristic bandwidth), calibrated on held-back
// simulations. A warning is printed when the observation lies far outside: farther than every
// held-back simulation (the smallest p-value) and with less than a hundredth of the kernel
// mass that the most remote held-back simulation receives (farOutside). The second condition
// keeps the warning for observations the estimator has really not seen: on 20,000 fresh
// simulations of each benchmark task of package task (standardized x, 500 reference and 500
// calibration simulations) about 1/501 reach the smallest p-value, as they must, and none
// reaches the mass ratio except on lotka_volterra, whose heavy-tailed counts put rare
// simulations far from all others, where the warning is right.
//
// The reservoir: at most reservoirRows reference summaries drawn from the training split and
// as many calibration summaries from the validation split (summaries the network was not fitted
// to, so that they and a new observation are exchangeable; from the training split when there
// is no validation split), each set limited to reservoirValues values so that a check costs at
// most that many multiply-adds. It is rebuilt by every successful Train and not saved in
// files: a loaded estimator has none, and neither has one trained by TrainStream (whose
// summaries change with the standardization and the embedding it trains).
const (
	reservoirRows   = 500
	reservoirValues = 200_000
	// minCalibration is the fewest calibration summaries with which the check runs: with m of
	// them the smallest p-value is 1/(m+1), and 1/20 = 0.05.
	minCalibration = 19
	// farOutside is the log of the kernel-mass ratio below which an observation beyond all
	// held-back simulations counts as far outside: ln(1/100).
	farOutside = -4.605170185988091
)

// Summarizer is implemented by estimators that condition on a summary of the observation:
// Summaries maps each row of x to the vector the estimator's network sees (x standardized,
// then embedded). diag.Misspecification tests observations in this space.
type Summarizer interface {
	Summaries(x *mat.Dense) *mat.Dense
}

// ObservationCheck is the test of whether an observation lies among the training simulations
// of an estimator (see CheckObservation).
type ObservationCheck struct {
	Statistic   float64 // MMD² of the observation's summary against the reference summaries
	PValue      float64 // (1 + #{calibration statistics ≥ Statistic})/(Calibration + 1)
	Reference   int     // reference summaries
	Calibration int     // held-back summaries that calibrate the p-value
	Bandwidth   float64 // σ of the Gaussian kernel, the median distance between reference summaries
	Embedded    bool    // the summaries are the embedding's output; else standardized x
	// LogMassRatio is the log of the kernel mass the reference puts near the observation over
	// the least that any calibration summary receives (negative: less than all of them).
	LogMassRatio float64
	// Outside is true when the observation is far outside the training simulations: farther
	// from the reference than every calibration summary (PValue = 1/(Calibration + 1)) and with
	// LogMassRatio below ln(1/100). Forming a posterior there prints a warning.
	Outside bool
}

// Verdict says what the check supports, and what it means for the posterior.
func (c *ObservationCheck) Verdict() string {
	if c.Outside {
		return fmt.Sprintf("far outside the training simulations: the observation is farther from them (MMD² %.3g) than each of %d held-back simulations (p = %.3g), with %.2g times the kernel mass the most remote of those receives; the estimator was never trained here, so its posterior is an extrapolation that can be wrong in location and width; check the simulator and the observation (misspecification, preprocessing), or simulate around this observation and train again",
			c.Statistic, c.Calibration, c.PValue, math.Exp(c.LogMassRatio))
	}
	return fmt.Sprintf("not far outside the training simulations: MMD² %.3g, p = %.3g against %d held-back simulations (this does not show that the posterior is right here)",
		c.Statistic, c.PValue, c.Calibration)
}

// String is the verdict with the size of the reservoir.
func (c *ObservationCheck) String() string {
	space := "standardized x"
	if c.Embedded {
		space = "embedding"
	}
	return fmt.Sprintf("observation check (%s, %d reference summaries): %s", space, c.Reference, c.Verdict())
}

// MIMEBundle shows the check as HTML and text.
func (c *ObservationCheck) MIMEBundle() map[string]any {
	style := ""
	if c.Outside {
		style = ` style="color:#D55E00"`
	}
	h := fmt.Sprintf(`<div><b>Observation check</b><span%s> — %s</span></div>`, style, html.EscapeString(c.Verdict()))
	return map[string]any{"text/html": h, "text/plain": c.String()}
}

// obsCheck is the reservoir of a trained estimator.
type obsCheck struct {
	ref *mmd.Reference
}

// errNoReservoir is the error of CheckObservation for an estimator without a reservoir.
var errNoReservoir = errors.New("the estimator keeps no reservoir of training simulations (it was loaded from a file, trained from a source of batches by TrainStream, or trained on too few simulations to hold back 19): test the observation against the simulations with diag.Misspecification")

// Summaries returns the vectors the estimator conditions on for each row of x: x standardized
// with the training statistics, then passed through the embedding when there is one. It
// panics when the estimator is untrained, x has the wrong width, or a row of x cannot be
// summarized: it holds NaN or ±Inf, or the embedding cannot read it (a count of trials
// outside 1 … MaxTrials), whose summary would be that of another observation.
//
// Summaries evaluates the embedding as a posterior does, so a row holding a number of trials
// outside those of training prints the posterior's warning, naming Summaries.
func (c *estimator) Summaries(x *mat.Dense) *mat.Dense {
	return c.summaries(x, c.label+" Summaries")
}

// summaries is Summaries, whose warning about numbers of trials outside those of training
// names the call what; "" for none (the training rows of the reservoir).
func (c *estimator) summaries(x *mat.Dense, what string) *mat.Dense {
	c.mustTrained("Summaries")
	n, cols := x.Dims()
	if cols != c.xDim {
		panic(fmt.Sprintf("sbi: %s.Summaries: x has %d columns, expected %d", c.name, cols, c.xDim))
	}
	c.checkEvalRows("Summaries", x)
	if what != "" {
		c.warnUnseenTrials(what, x)
	}
	out := mat.NewDense(n, c.summaryWidth(), nil)
	parallelChunks(n, chunkFor(n), func(_, lo, hi int) {
		tp := getTape()
		defer putTape(tp)
		s := c.context(tp, x.Slice(lo, hi, 0, cols).(*mat.Dense))
		copy(out.RawMatrix().Data[lo*s.Cols:hi*s.Cols], s.Data)
	})
	return out
}

// summaryKind says what a summary is: the embedding's output or the standardized x.
func (c *estimator) summaryKind() string {
	if c.emb != nil {
		return "the embedding's output"
	}
	return "the standardized x"
}

// summaryWidth is the length of a summary: the embedding's output, or xDim.
func (c *estimator) summaryWidth() int {
	if c.emb != nil {
		return c.emb.Out()
	}
	return c.xDim
}

// CheckObservation tests whether x lies among the estimator's training simulations (see the
// package-level description above Summarizer): the MMD² of its summary against the reservoir,
// with a p-value calibrated on held-back simulations. It returns an error when the estimator
// keeps no reservoir, when x or its summary holds NaN or ±Inf (wrapping ErrNonFinite: a
// summary overflows for an x far beyond the training data), or when the embedding cannot read
// x (a count of trials outside 1 … MaxTrials), and panics when x has the wrong length. Like a
// posterior it warns when x holds a number of trials outside those of training, naming
// CheckObservation: its summary there is an extrapolation too.
func (c *estimator) CheckObservation(x []float64) (*ObservationCheck, error) {
	return c.checkObservation(x, c.label+" CheckObservation")
}

// checkObservation is CheckObservation, whose warning about a number of trials outside those
// of training names the call what; "" for none (a posterior, which warned already).
func (c *estimator) checkObservation(x []float64, what string) (*ObservationCheck, error) {
	c.mustTrained("CheckObservation")
	if len(x) != c.xDim {
		panic(fmt.Sprintf("sbi: %s.CheckObservation: x has %d values, expected %d", c.name, len(x), c.xDim))
	}
	if c.obs == nil {
		return nil, fmt.Errorf("%s: %w", c.name, errNoReservoir)
	}
	if err := c.observationErr(x); err != nil {
		return nil, fmt.Errorf("%s: %w", c.name, err)
	}
	if what != "" {
		c.warnUnseenTrials(what, mat.NewDense(1, len(x), x)) // only read: no copy
	}
	tp := getTape()
	defer putTape(tp)
	s := c.context(tp, mat.NewDense(1, len(x), append([]float64(nil), x...)))
	if !finite(s.Data) {
		return nil, fmt.Errorf("%s: the observation's summary (%s) holds NaN or infinite values (%w): %v; x = %v is too far from the training data for the network to summarize, and there is no statistic to test",
			c.name, c.summaryKind(), ErrNonFinite, fmtVec(s.Data), fmtVec(x))
	}
	stat := c.obs.ref.Statistic(s.Data)
	nr, nc := c.obs.ref.Sizes()
	p := c.obs.ref.PValue(stat)
	ratio := c.obs.ref.LogKernelRatio(s.Data)
	return &ObservationCheck{Statistic: stat, PValue: p, Reference: nr, Calibration: nc, LogMassRatio: ratio,
		Bandwidth: c.obs.ref.Bandwidth(), Embedded: c.emb != nil, Outside: p <= 1/float64(nc+1) && ratio < farOutside}, nil
}

// warnIfOutside prints a warning when the estimator has a reservoir and x lies outside it,
// and when x holds a number of trials outside those of training (warnUnseenTrials). It is
// called where a posterior is formed; a member of an ensemble is not asked, the ensemble warns
// once for all its members (warnEnsembleOutside).
func (c *estimator) warnIfOutside(x []float64) {
	if !c.trained || len(x) != c.xDim || !finite(x) {
		return
	}
	c.warnUnseenTrials(c.label+" posterior", mat.NewDense(1, len(x), x)) // only read: no copy
	c.warnOutside(c.label+" posterior", x)
}

// warnOutside prints a warning, naming the call what, when the estimator has a reservoir and x
// lies far outside it. It reports whether it warned.
func (c *estimator) warnOutside(what string, x []float64) bool {
	if !c.trained || len(x) != c.xDim || !finite(x) || c.obs == nil {
		return false
	}
	chk, err := c.checkObservation(x, "")
	if err != nil || !chk.Outside {
		return false
	}
	warnf("observation", "%s at an observation %s", what, chk.Verdict())
	return true
}

// warnEnsembleOutside warns once, naming the ensemble's call what, when x lies far outside the
// training simulations of a member (the first such member's check).
func warnEnsembleOutside(what string, members []*estimator, x []float64) {
	for _, c := range members {
		if c.warnOutside(what, x) {
			return
		}
	}
}

// keepReservoir builds the reservoir from the training pairs d: reference summaries from the
// training rows, calibration summaries from the validation rows (or the training rows when
// there are too few). It leaves none when fewer than minCalibration calibration summaries can
// be held back.
func (c *estimator) keepReservoir(d *trainData, train, val []int, seed uint64) {
	c.obs = nil
	rng := rand.New(rand.NewPCG(seed, 0x6f6273))
	rows := min(reservoirRows, max(1, reservoirValues/c.summaryWidth()))
	pick := func(idx []int, k int) []int {
		p := append([]int(nil), idx...)
		rng.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
		return p[:min(k, len(p))]
	}
	var refRows, calRows []int
	if len(val) >= minCalibration {
		refRows, calRows = pick(train, rows), pick(val, rows)
	} else {
		all := pick(train, 2*rows)
		h := len(all) / 2
		refRows, calRows = all[:h], all[h:]
	}
	if len(calRows) < minCalibration || len(refRows) < 2 {
		return
	}
	ref, err := mmd.New(c.summaries(rowsOf(d.x, refRows), ""), c.summaries(rowsOf(d.x, calRows), ""))
	if err != nil {
		return
	}
	c.obs = &obsCheck{ref: ref}
}
