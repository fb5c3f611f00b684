// Package cancel is how the library's long loops notice that their context is done. The plain
// forms of the public calls pass the host's context (runenv.Context, which a notebook worker
// cancels on interrupt); their context-first forms (TrainContext, SampleContext, …) pass the
// caller's, so that two calls with two contexts stop separately.
package cancel

import (
	"context"
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
