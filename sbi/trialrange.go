package sbi

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// A set embedding whose observations hold a varying number of trials (DeepSetEmbedding with
// MaxTrials > 0, or any embedding that reports the number of trials of an observation through
// TrialCounter) reads numbers of trials it was never trained on, but there its summaries are
// an extrapolation that no loss checked: a posterior of 40 trials from an estimator trained on
// 1 to 5 comes out in the right shape and can be wrong in location and width. So a trained
// estimator records the range of the numbers of trials of its training observations (the
// training split: the validation rows, which the network is not fitted to, do not widen it;
// Train with Resume adds to the range), saves it with its weights, and every public call that
// evaluates the embedding on an observation (a posterior, LogProbPairs, LogRatio, Summaries,
// ToBase, CheckObservation) prints a warning, naming the call, its number of trials and the
// range, when the observation lies outside the range. It answers all the same: an
// extrapolation may be what is wanted. An estimator loaded from a file written before ranges
// were stored (format 2) does not know its range and says nothing, and training it on with
// Resume does not make the range known: the union of an unknown range with the numbers the
// resumed run saw is unknown, while those numbers alone would claim that the estimator was
// never trained on the others its first training may have held.

// trialRange is the range, Min to Max, of the numbers of trials of the observations an
// estimator was trained on.
type trialRange struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

// TrialCounter is implemented by an embedding of sets of i.i.d. trials whose observations hold
// a varying number of trials, such as DeepSetEmbedding with MaxTrials > 0. An estimator with
// such an embedding records the range of the numbers of trials of its training observations,
// saves it with its weights, and warns when asked at an observation outside it, where the
// summaries are an extrapolation that no loss checked. An embedding of another package
// implements it to have its observations checked the same way; one that does not is never
// checked.
type TrialCounter interface {
	Embedding
	// TrialCount returns the number of trials of the observation row, in raw units (as
	// given to Train and to a posterior), and false when row holds no count: an observation
	// the embedding cannot read, or every observation when the embedding is configured for
	// a fixed number of trials. A count below 1 makes Train fail. It must not change row, and
	// must not panic: it is called on every observation a trained estimator is asked about.
	TrialCount(row []float64) (n int, ok bool)
}

// trialBound is implemented by a TrialCounter that knows the most trials an observation may
// hold (DeepSetEmbedding), so that loading can check a stored range against it.
type trialBound interface {
	// maxTrials is the most trials an observation may hold; 0 when every observation holds
	// the same number.
	maxTrials() int
}

// counterOf returns the embedding's TrialCounter, nil for an embedding without one.
func counterOf(e Embedding) TrialCounter {
	tc, _ := e.(TrialCounter)
	return tc
}

// countTrials returns the number of trials of row for the embedding tc, false when tc is nil
// or holds no count for row.
func countTrials(tc TrialCounter, row []float64) (int, bool) {
	if tc == nil {
		return 0, false
	}
	return tc.TrialCount(row)
}

// badCount returns the error for a training row of which tc counted n < 1 trials.
func badCount(tc TrialCounter, n int) error {
	return fmt.Errorf("the embedding %T counts %d trials in an observation (TrialCount), expected at least 1: fix its TrialCount, or return false for an observation without a count", tc, n)
}

// union returns the smallest range holding r and o; nil when either is nil (unknown).
func (r *trialRange) union(o *trialRange) *trialRange {
	if r == nil || o == nil {
		return nil
	}
	return &trialRange{Min: min(r.Min, o.Min), Max: max(r.Max, o.Max)}
}

// trialSpan gathers the range of the numbers of trials of training rows one row at a time,
// in a value, so that a pass over many rows makes one trialRange at its end.
type trialSpan struct {
	lo, hi int
	seen   bool // whether a number was added
}

// add widens the span to hold n.
func (s *trialSpan) add(n int) {
	if !s.seen {
		s.lo, s.hi, s.seen = n, n, true
		return
	}
	s.lo, s.hi = min(s.lo, n), max(s.hi, n)
}

// rangeOf returns the span as a trialRange, nil when no number was added.
func (s trialSpan) rangeOf() *trialRange {
	if !s.seen {
		return nil
	}
	return &trialRange{Min: s.lo, Max: s.hi}
}

// holds reports whether n lies in the range.
func (r *trialRange) holds(n int) bool { return n >= r.Min && n <= r.Max }

// String is "1–5", or "5" for a single number.
func (r *trialRange) String() string {
	if r.Min == r.Max {
		return fmt.Sprint(r.Min)
	}
	return fmt.Sprintf("%d–%d", r.Min, r.Max)
}

// seenTrials returns the range of the numbers of trials of the rows idx of x, nil when the
// embedding tc is nil or counts no row; an error naming the row when tc counts fewer than 1.
func seenTrials(tc TrialCounter, x *mat.Dense, idx []int) (*trialRange, error) {
	var s trialSpan
	for _, i := range idx {
		if n, ok := countTrials(tc, x.RawRowView(i)); ok {
			if n < 1 {
				return nil, fmt.Errorf("row %d: %w", i, badCount(tc, n))
			}
			s.add(n)
		}
	}
	return s.rangeOf(), nil
}

// checkStored returns an error unless r is a range that training with the embedding tc can
// have recorded: tc counts trials (nil does not), and 1 ≤ Min ≤ Max, and Max ≤ MaxTrials where
// tc knows its MaxTrials.
func (r *trialRange) checkStored(tc TrialCounter) error {
	most, bound := 0, false
	if b, ok := tc.(trialBound); ok {
		most, bound = b.maxTrials(), true
	}
	if tc == nil || bound && most == 0 {
		return fmt.Errorf("load: damaged header (a range of trials, %d–%d, for an estimator without a set embedding of varying numbers of trials)", r.Min, r.Max)
	}
	switch {
	case bound && (r.Min < 1 || r.Max < r.Min || r.Max > most):
		return fmt.Errorf("load: damaged header (the range of trials of training is %d–%d, expected 1 ≤ min ≤ max ≤ MaxTrials = %d)", r.Min, r.Max, most)
	case r.Min < 1 || r.Max < r.Min:
		return fmt.Errorf("load: damaged header (the range of trials of training is %d–%d, expected 1 ≤ min ≤ max)", r.Min, r.Max)
	}
	return nil
}

// warnUnseenTrials prints a warning when a row of x holds a number of trials outside the range
// the estimator was trained on (nothing when the range is unknown or the embedding reads a
// fixed number); what names the call ("NPE (maf) posterior"). It reports whether it found
// such a row. An ensemble calls its members' variants that do not warn, and warns once itself
// (warnEnsembleTrials).
func (c *estimator) warnUnseenTrials(what string, x *mat.Dense) bool {
	if c.trials == nil || !c.trained {
		return false
	}
	n, _ := x.Dims()
	first, count, bad := -1, 0, 0
	for i := 0; i < n; i++ {
		if k, ok := countTrials(c.counter, x.RawRowView(i)); ok && !c.trials.holds(k) {
			if first < 0 {
				first, count = i, k
			}
			bad++
		}
	}
	if first < 0 {
		return false
	}
	where := fmt.Sprintf("%s at an observation of %d trials", what, count)
	if n > 1 {
		where = fmt.Sprintf("%s: %d of %d observations hold a number of trials outside the training range, the first (row %d) an observation of %d trials", what, bad, n, first, count)
	}
	how := ""
	if _, ok := c.counter.(DeepSetEmbedding); ok {
		how = " (DeepSetEmbedding.WithCounts)"
	}
	warnf("trials", "%s: the estimator was trained on observations of %s trials; its set embedding reads other numbers of trials without complaint, but its summaries there were never checked by a loss, so the result is an extrapolation that can be wrong in location and width: train on sets of the numbers of trials you ask with%s", where, c.trials, how)
	return true
}

// warnEnsembleTrials warns once, naming the ensemble's call what, when a row of x holds a number
// of trials outside the training range of a member (the first such member's range).
func warnEnsembleTrials(what string, members []*estimator, x *mat.Dense) {
	for _, c := range members {
		if c.warnUnseenTrials(what, x) {
			return
		}
	}
}

// recordTrials sets the range of trials of a trained estimator after a training whose
// observations held seen: that range after a fresh training, the union with the range before
// after one resumed (unknown stays unknown: see the comment at the top of this file).
func (c *estimator) recordTrials(resumed bool, seen *trialRange) {
	switch {
	case !c.trained:
		c.trials = nil
	case resumed:
		c.trials = c.trials.union(seen)
	default:
		c.trials = seen
	}
}
