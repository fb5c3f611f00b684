package diag

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"

	"github.com/gosbi/gosbi/sbi"
)

// warnOutput returns where diag's warnings are written; it is read at every warning, because
// a notebook worker points os.Stderr at its own pipe. Tests replace it.
var warnOutput = func() io.Writer { return os.Stderr }

// chainTally gathers the MCMC health of the posteriors of a loop over test pairs, whose
// samplers run under nested.Context and so neither report progress nor warn per pair: the
// loop says once how many pairs' chains were flagged, the extremes, and the first flagged
// pair's warnings in full. It is safe for concurrent use.
type chainTally struct {
	mu      sync.Mutex
	flagged int
	maxRhat float64 // over the flagged pairs' parameters; NaN-free
	minESS  float64
	first   int // the flagged pair of smallest index
	firstW  []string
}

// add records the health of pair i's last draw, when its posterior ran chains.
func (t *chainTally) add(i int, post sbi.Posterior) {
	hp, ok := post.(interface{ MCMCHealth() *sbi.MCMCHealth })
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
	fmt.Fprintf(warnOutput(), "diag: warning: %s: the MCMC chains of %d of %d test pairs did not mix well (largest R-hat %.3g, smallest ESS %.0f); the first, pair %d: %s\n",
		label, t.flagged, n, t.maxRhat, t.minESS, t.first, strings.Join(t.firstW, "; "))
}
