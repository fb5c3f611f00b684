// Package nested marks a context as that of one step of a loop that reports for all its
// steps (a diagnostic over test pairs): a call made under it reports no progress of its own,
// and leaves warnings that the loop gathers (MCMC health) to the loop, which says them once.
package nested

import "context"

type key struct{}

// Context returns ctx marked as a step of a reporting loop.
func Context(ctx context.Context) context.Context { return context.WithValue(ctx, key{}, true) }

// In reports whether ctx is marked by Context.
func In(ctx context.Context) bool {
	v, _ := ctx.Value(key{}).(bool)
	return v
}
