package sbi

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/internal/cancel"
	"gonum.org/v1/gonum/mat"
)

// acceptance counts the draws of a rejection sampler and those of them it kept, over all its
// calls: the draws of NPE's flow or FMPE's field inside the prior's support, the prior's draws
// inside a TruncatedPrior's region. It is safe for
// concurrent use.
type acceptance struct {
	mu                 sync.Mutex
	proposed, accepted int
}

// add counts the draws of one call.
func (a *acceptance) add(proposed, accepted int) {
	a.mu.Lock()
	a.proposed += proposed
	a.accepted += accepted
	a.mu.Unlock()
}

// rate is the share of the draws kept, NaN before the first draw.
func (a *acceptance) rate() float64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.proposed == 0 {
		return math.NaN()
	}
	return float64(a.accepted) / float64(a.proposed)
}

// describe says how many of the draws fell inside the support, as ", A of P <what> draws (r%)
// inside the prior's support", or "" before the first draw.
func (a *acceptance) describe(what string) string {
	a.mu.Lock()
	proposed, accepted := a.proposed, a.accepted
	a.mu.Unlock()
	if proposed == 0 {
		return ""
	}
	return fmt.Sprintf(", %d of %d %s draws (%.3g%%) inside the prior's support", accepted, proposed, what, 100*float64(accepted)/float64(proposed))
}

// rejection is a sampler of a posterior that draws from a density over all of ℝᴰ and rejects
// the draws outside the prior's support.
type rejection struct {
	name  string // the start of its errors and of what cancellation says, e.g. "NPE posterior"
	prior dist.Distribution
	count *acceptance // where the draws of every call are counted
	// round is the number of draws of the next round: see roundSize.
	round func(missing, proposed, accepted, dim int) int
	// draw returns m draws in raw units, one per row.
	draw func(m int) (*mat.Dense, error)
	// stalled says why too few draws land inside the support and what helps.
	stalled func() string
}

// sample draws n rows inside the prior's support, round after round, until it has them or ctx
// is done. It returns an error wrapping ErrLowAcceptance once 10,000 draws are made and fewer
// than MinAcceptanceRate of them were kept, and, when ctx is done, cancel.Drawn's error.
func (r rejection) sample(ctx context.Context, n int) (*mat.Dense, error) {
	D := r.prior.Dim()
	out := mat.NewDense(n, D, nil)
	got, proposed, accepted := 0, 0, 0
	defer func() { r.count.add(proposed, accepted) }()
	for got < n {
		if err := cancel.Check(ctx, r.name+" sampling"); err != nil {
			return nil, cancel.Drawn(ctx, err, got, n)
		}
		m := r.round(n-got, proposed, accepted, D)
		cand, err := r.draw(m)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.name, err)
		}
		for i := 0; i < m; i++ {
			row := cand.RawRowView(i)
			if !r.prior.InSupport(row) {
				continue
			}
			accepted++
			if got < n {
				copy(out.RawRowView(got), row)
				got++
			}
		}
		proposed += m
		if got < n && proposed >= 10000 && float64(accepted) < MinAcceptanceRate*float64(proposed) {
			return nil, fmt.Errorf("%s: %w: only %d of %d draws (%.2g%%) fell inside the prior's support, below the %.2g%% at which sampling would stall: %s",
				r.name, ErrLowAcceptance, accepted, proposed, 100*float64(accepted)/float64(proposed), 100*MinAcceptanceRate, r.stalled())
		}
	}
	return out, nil
}

// roundSize is the number of draws of a round of rejection sampling (NPE's flow, FMPE's
// ODE) that misses missing draws after proposed draws of which accepted fell inside the
// prior's support: what is missing over the acceptance rate so far (1 before any draw), with
// 10% to spare, at most 2²⁰ draws and at most maxSampleValues values (the bound of one call's
// result, so that a round of a high-dimensional posterior holds no more than a call returns).
func roundSize(missing, proposed, accepted, dim int) int {
	rate := float64(accepted+1) / float64(proposed+1)
	return min(int(float64(missing)/max(rate, MinAcceptanceRate)*1.1)+1, 1<<20, max(1, maxSampleValues/dim))
}
