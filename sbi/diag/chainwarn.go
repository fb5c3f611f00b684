package diag

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/internal/nested"
)

// warnOutput returns where diag's warnings are written; it is read at every warning, because
// a notebook worker points os.Stderr at its own pipe. Tests replace it.
var warnOutput = func() io.Writer { return os.Stderr }

// healthReporter is a posterior that reports the MCMC health of its last draw, as
// sbi.RatioPosterior does.
type healthReporter interface{ MCMCHealth() *sbi.MCMCHealth }

// pairContext returns the context under which a loop over test pairs draws from post:
// nested.Context(ctx), under which its sampler leaves progress and chain warnings to the loop,
// when post reports its health to the loop (chainTally); ctx otherwise, so that a posterior
// that wraps a sampler without reporting its health keeps the sampler's own warnings.
func pairContext(ctx context.Context, post sbi.Posterior) context.Context {
	if _, ok := post.(healthReporter); ok {
		return nested.Context(ctx)
	}
	return ctx
}

// chainTally gathers the MCMC health of the posteriors of a loop over test pairs, whose
// samplers run under nested.Context (pairContext) and so neither report progress nor warn per
// pair: the loop says once how many pairs' chains were flagged, the extremes, and the first
// flagged pair's warnings in full. It is safe for concurrent use.
type chainTally struct {
	mu      sync.Mutex
	flagged int
	maxRhat float64 // over the flagged pairs' parameters; NaN-free: -Inf when all are NaN
	minESS  float64 // +Inf when all are NaN
	first   int     // the flagged pair of smallest index
	firstW  []string
}

// add records the health of pair i's last draw, when its posterior ran chains.
func (t *chainTally) add(i int, post sbi.Posterior) {
	hp, ok := post.(healthReporter)
	if !ok {
		return
	}
	h := hp.MCMCHealth()
	if h == nil {
		return
	}
	w := h.Warnings()
	if len(w) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.flagged == 0 {
		t.maxRhat, t.minESS = math.Inf(-1), math.Inf(1)
	}
	t.flagged++
	for d := range h.Rhat {
		if !math.IsNaN(h.Rhat[d]) {
			t.maxRhat = math.Max(t.maxRhat, h.Rhat[d])
		}
		if e := math.Min(h.ESSBulk[d], h.ESSTail[d]); !math.IsNaN(e) {
			t.minESS = math.Min(t.minESS, e)
		}
	}
	if t.firstW == nil || i < t.first {
		t.first, t.firstW = i, w
	}
}

// warn writes the one warning of a loop of n pairs labelled label, if any pair was flagged.
func (t *chainTally) warn(label string, n int) {
	if t.flagged == 0 {
		return
	}
	fmt.Fprintf(warnOutput(), "diag: warning: %s: the MCMC chains of %d of %d test pairs did not mix well (%s); the first, pair %d: %s\n",
		label, t.flagged, n, t.extremes(), t.first, strings.Join(t.firstW, "; "))
}

// extremes says the largest R-hat and the smallest ESS of the flagged pairs, or that they are
// undefined where every flagged chain was constant (all are NaN).
func (t *chainTally) extremes() string {
	noR, noESS := math.IsInf(t.maxRhat, -1), math.IsInf(t.minESS, 1)
	switch {
	case noR && noESS:
		return "R-hat and ESS undefined: every flagged chain was constant"
	case noR:
		return fmt.Sprintf("R-hat undefined: every flagged chain was constant; smallest ESS %.0f", t.minESS)
	case noESS:
		return fmt.Sprintf("largest R-hat %.3g; ESS undefined: every flagged chain was constant", t.maxRhat)
	}
	return fmt.Sprintf("largest R-hat %.3g, smallest ESS %.0f", t.maxRhat, t.minESS)
}
