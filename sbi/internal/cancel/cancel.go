// Package cancel is how the library's long loops notice that their context is done. The plain
// forms of the public calls pass the host's context (runenv.Context, which a notebook worker
// cancels on interrupt); their context-first forms (TrainContext, SampleContext, …) pass the
// caller's, so that two calls with two contexts stop separately.
package cancel

import (
	"context"
	"errors"
	"fmt"
)

// Check returns nil while ctx is live and, once it is done, an error naming what was
// interrupted that wraps ctx.Err() (context.Canceled or context.DeadlineExceeded).
func Check(ctx context.Context, what string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s interrupted: %w", what, err)
	}
	return nil
}

// Stopped reports whether err is the error of a call that ctx stopped: ctx is done and err
// wraps its error.
func Stopped(ctx context.Context, err error) bool {
	return ctx.Err() != nil && errors.Is(err, ctx.Err())
}

// Note is the last progress message of a call that an interrupt stopped after done of total
// units (a plural noun), then what the call keeps (kept, e.g. "nothing kept"; "" for no
// claim, see Kept). A notebook shows it where the error is not: a cell whose Must form an
// interrupt stopped ends as interrupted before the Must form panics with the error.
func Note(done, total int, units, kept string) string {
	s := fmt.Sprintf("stopped by interrupt after %d of %d %s", done, total, units)
	if done == 0 {
		s = fmt.Sprintf("stopped by interrupt before any of %d %s finished", total, units)
	}
	if kept == "" {
		return s
	}
	return s + "; " + kept
}

// callerKeepsKey is the key of CallerKeeps's mark.
type callerKeepsKey struct{}

// CallerKeeps returns ctx marked for the calls of a caller whose own last progress line says
// what an interrupt keeps (certify keeps its best estimator so far, not the weights of an
// inner training or the rows of an inner simulation): their last lines then say where the
// interrupt stopped them without a claim of what they keep, which would not be true of the
// caller's result.
func CallerKeeps(ctx context.Context) context.Context {
	return context.WithValue(ctx, callerKeepsKey{}, true)
}

// ByCaller reports whether ctx is marked by CallerKeeps.
func ByCaller(ctx context.Context) bool {
	v, _ := ctx.Value(callerKeepsKey{}).(bool)
	return v
}

// Kept is what a call's last progress line under ctx says it keeps: own, or "" (no claim)
// under CallerKeeps.
func Kept(ctx context.Context, own string) string {
	if ByCaller(ctx) {
		return ""
	}
	return own
}

// NothingKept is Note's kept for a call that returns only its error.
const NothingKept = "nothing kept"

// Progress is the part of sbi.Progress that FinishProgress uses.
type Progress interface {
	Set(done int, msg string)
	Finish()
}

// FinishProgress finishes p, whose call returns err after done of total units (a plural noun)
// finished. When ctx stopped the call, p's last message first says so and that nothing is
// kept (unless ctx is marked by CallerKeeps): for the calls that return only their error on
// an interrupt. It returns err.
func FinishProgress(ctx context.Context, p Progress, err error, done, total int, units string) error {
	if Stopped(ctx, err) {
		p.Set(done, Note(done, total, units, Kept(ctx, NothingKept)))
	}
	p.Finish()
	return err
}

// Drawn is the error err of a sampler that returns it after got of n draws: when ctx stopped
// the sampler, err prefixed with how many were drawn and that they are not kept (the sampler
// returns only its error; no claim under CallerKeeps), else err as it is.
func Drawn(ctx context.Context, err error, got, n int) error {
	if !Stopped(ctx, err) {
		return err
	}
	return fmt.Errorf("%s: %w", Note(got, n, "draws", Kept(ctx, NothingKept)), err)
}
