// Package draw samples a posterior until a context is done: with its SampleContext where it
// has one (the posteriors of package sbi), else with Sample (a user's posterior, a
// distribution), which no context stops.
package draw

import (
	"context"
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Sampler is the part of sbi.Posterior that Context uses.
type Sampler interface {
	Sample(rng *rand.Rand, n int) *mat.Dense
}

// ContextSampler is a posterior that samples until a context is done and reports failures as
// errors: the posteriors of package sbi.
type ContextSampler interface {
	SampleContext(ctx context.Context, rng *rand.Rand, n int) (*mat.Dense, error)
}

// Context draws n points from p until ctx is done: with its SampleContext where it has one,
// else with Sample, whose panic reaches the caller.
func Context(ctx context.Context, p Sampler, rng *rand.Rand, n int) (*mat.Dense, error) {
	if c, ok := p.(ContextSampler); ok {
		return c.SampleContext(ctx, rng, n)
	}
	return p.Sample(rng, n), nil
}

// Recovered is Context with a panic of Sample returned as an error: the panic value itself
// when it is an error, so that errors.Is sees its sentinel. A panic of SampleContext reaches
// the caller, as in Context.
func Recovered(ctx context.Context, p Sampler, rng *rand.Rand, n int) (s *mat.Dense, err error) {
	if _, ok := p.(ContextSampler); !ok {
		defer recoverInto(&err)
	}
	return Context(ctx, p, rng, n)
}

// recoverInto, deferred, stores a panic in *errp: the panic value when it is an error.
func recoverInto(errp *error) {
	r := recover()
	if r == nil {
		return
	}
	if e, ok := r.(error); ok {
		*errp = e
		return
	}
	*errp = fmt.Errorf("%v", r)
}
