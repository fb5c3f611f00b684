package diag

import (
	"context"
	"fmt"
	"html"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/internal/text"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/internal/cancel"
	"github.com/gosbi/gosbi/sbi/internal/draw"
	"github.com/gosbi/gosbi/sbi/internal/pairs"
	"github.com/gosbi/gosbi/sbi/internal/safe"
)

// forEachPair calls fn(i) for i in [0, n) on workers goroutines (0 means GOMAXPROCS). It stops
// at the first error or once ctx is done (checked before every pair), and reports progress
// under label, counting units (a plural noun); an interrupt's last message says how many
// finished and that nothing is kept, as every caller then returns only the error.
// A panic in fn (an estimator that panics on some input) is returned as a *safe.PanicError
// naming the pair.
func forEachPair(ctx context.Context, label, units string, n, workers int, fn func(i int) error) error {
	return forEachPairNote(ctx, label, units, "", n, workers, fn)
}

// forEachPairNote is forEachPair whose progress bar carries the message note from its start
// ("" for none).
func forEachPairNote(ctx context.Context, label, units, note string, n, workers int, fn func(i int) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n)
	prog := sbi.NewProgress(label, n)
	if note != "" {
		prog.Set(0, note)
	}
	var (
		done    atomic.Int64 // calls of fn that returned nil
		next    atomic.Int64
		stop    atomic.Bool
		errOnce sync.Once
		first   error
		wg      sync.WaitGroup
	)
	fail := func(err error) {
		errOnce.Do(func() { first = err })
		stop.Store(true)
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			defer func() {
				if err != nil {
					fail(err)
				}
			}()
			defer safe.Recover(&err, "diag: "+label) // a panicking progress or cancellation hook
			for !stop.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := cancel.Check(ctx, label); err != nil {
					fail(err)
					return
				}
				if err := safe.Call(fmt.Sprintf("diag: %s, test pair %d", label, i), func() error { return fn(i) }); err != nil {
					fail(err)
					return
				}
				done.Add(1)
				prog.Add(1)
			}
		}()
	}
	wg.Wait()
	return cancel.FinishProgress(ctx, prog, first, int(done.Load()), n, units)
}

// finishTrials finishes prog, the progress of len(errs) concurrent trials, and returns the
// first of their errors; an interrupt's last message says how many finished and that nothing
// is kept.
func finishTrials(ctx context.Context, prog *sbi.Progress, errs []error, units string) error {
	var first error
	done := 0
	for _, err := range errs {
		switch {
		case err == nil:
			done++
		case first == nil:
			first = err
		}
	}
	return cancel.FinishProgress(ctx, prog, first, done, len(errs), units)
}

// pairRNG is the random stream of test pair i: independent of the worker that runs it.
func pairRNG(seed uint64, i int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(i)))
}

// checkPairs validates a batch of test pairs of est before the workers start: θ and x with
// one row per pair, x rows of the width est takes and θ rows of its posteriors' dimension
// (probed with the first finite pair, so that a wrong width is a clear error rather than a
// panic in a worker). Pairs whose θ or x holds NaN or ±Inf (a simulator such as SIR or
// Lotka–Volterra produces them by design) are dropped, as training does: it returns the finite
// pairs and how many were dropped. For an estimator whose observations may end in NaN padding
// (a pairs.Unpadder: sbi.AmortizedTrials) only the values before the padding count: a padded x is
// kept, one without values or whose values hold ±Inf is dropped, and one the estimator cannot
// read is an error naming the pair.
func checkPairs(what string, est sbi.Amortized, theta, x *mat.Dense) (th, xx *mat.Dense, dropped int, err error) {
	th, xx, dropped, _, err = checkPairsMethod(what, est, theta, x)
	return th, xx, dropped, err
}

// checkPairsMethod is checkPairs that also returns how the posterior of the first pair it
// probes samples ("" when it does not say: it has no Method).
func checkPairsMethod(what string, est sbi.Amortized, theta, x *mat.Dense) (th, xx *mat.Dense, dropped int, method sbi.SamplerMethod, err error) {
	if est == nil {
		return nil, nil, 0, "", fmt.Errorf("diag: %s needs an estimator, got nil", what)
	}
	if theta == nil || x == nil {
		return nil, nil, 0, "", fmt.Errorf("diag: %s needs test parameters and observations, got nil", what)
	}
	n, dim := theta.Dims()
	if m, _ := x.Dims(); n != m {
		hint := ""
		if n > m {
			hint = " (sbi.Simulate drops the simulations that fail: pass its Theta, the rows kept, with its X)"
		}
		return nil, nil, 0, "", fmt.Errorf("diag: %s: theta has %d rows but x has %d; expected one row per test pair%s", what, n, m, hint)
	}
	if n == 0 {
		return nil, nil, 0, "", fmt.Errorf("diag: %s needs at least one test pair, got 0", what)
	}
	th, xx, dropped, err = pairs.Finite(est, theta, x, "test pair")
	if err != nil {
		return nil, nil, 0, "", fmt.Errorf("diag: %s: %w", what, err)
	}
	if th == nil {
		return nil, nil, dropped, "", fmt.Errorf("diag: %s: all %d test pairs hold NaN or infinite values; simulate pairs with finite θ and x", what, n)
	}
	err = safe.Call("first test pair", func() error { // wrapped below with "diag: "+what
		post := est.Posterior(rowCopy(xx, 0))
		if m, ok := post.(interface{ Method() sbi.SamplerMethod }); ok {
			method = m.Method()
		}
		if d := post.Dim(); d != dim {
			return fmt.Errorf("theta has %d columns but the estimator's posterior has %d parameters", dim, d)
		}
		if lp := post.LogProb(mat.NewDense(1, dim, rowCopy(th, 0))); len(lp) != 1 {
			return fmt.Errorf("the posterior's LogProb of 1 row returned %d values", len(lp))
		}
		return nil
	})
	if err != nil {
		_, cx := x.Dims()
		return nil, nil, dropped, "", fmt.Errorf("diag: %s: the estimator cannot evaluate the test pairs (θ %d columns, x %d columns): %w", what, dim, cx, err)
	}
	return th, xx, dropped, method, nil
}

// proposalNote is the sentence a summary adds, after "note: ", for an estimator trained on
// the proposal p, "" when p is: its posterior is fitted near the observation of Sequential's
// rounds, so a check over the whole prior reads the expected failure there as
// miscalibration. atObservation says the summary has checks at the observation already (a
// Report with an Observation), which the sentence then does not suggest.
func proposalNote(p string, atObservation bool) string {
	if p == "" {
		return ""
	}
	there := "LC2ST, or NewReport with an Observation"
	if atObservation {
		there = "LC2ST"
	}
	return "the estimator was trained on a proposal, not on its prior (" + p + "), so its posterior is only expected to hold near the observation of those rounds. " +
		"Over test pairs drawn from the whole prior this check tests what it was not trained for: draw the test pairs from the region it was trained for " +
		"(the Sequential result's Region, an sbi.TruncatedPrior, as tutorial 05 does, or the last round's proposal), or check it at the observation (" + there + ")"
}

// proposalLine is proposalNote as a line of a text summary: "note: …\n", "" when p is.
func proposalLine(p string) string {
	if p == "" {
		return ""
	}
	return "note: " + proposalNote(p, false) + "\n"
}

// proposalNoteHTML is proposalNote as a paragraph of a display, "" when p is.
func proposalNoteHTML(p string) string {
	if p == "" {
		return ""
	}
	return `<p style="font-size:85%"><i>` + html.EscapeString("note: "+proposalNote(p, false)) + `</i></p>`
}

// droppedNote is the line a text summary adds when test pairs were left out.
func droppedNote(n int) string {
	if n == 0 {
		return ""
	}
	return text.Count(n, "test pair") + " with NaN or infinite values left out\n"
}

// sampleContext draws n points from post until ctx is done: with its SampleContext where it has
// one (the posteriors of package sbi), else with Sample, whose panic forEachPair recovers.
func sampleContext(ctx context.Context, post sbi.Posterior, rng *rand.Rand, n int) (*mat.Dense, error) {
	return draw.Context(ctx, post, rng, n)
}

func rowCopy(m *mat.Dense, i int) []float64 {
	return append([]float64(nil), m.RawRowView(i)...)
}

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }
