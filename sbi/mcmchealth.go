package sbi

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/internal/mcmc"
)

// MCMCHealth tells how well the chains of one MCMC run mixed: per parameter the
// rank-normalized split R̂ and the bulk effective sample size of Vehtari et al.
// ("Rank-normalization, folding, and localization: an improved R̂", Bayesian Analysis 2021).
// A RatioPosterior (NRE, NLE, MNLE) reports one for its last MCMC draw.
type MCMCHealth struct {
	Sampler string // "slice"
	Chains  int
	Draws   int // draws per chain that the diagnostics use (complete sweeps after burn-in)

	// Per parameter; NaN where the chains are constant. Empty when the chains are shorter
	// than 4 draws: the split diagnostics cannot be computed (Assessed is false).
	Rhat    []float64 // rank-normalized split R̂ (the larger of bulk and folded)
	ESSBulk []float64 // bulk effective sample size, for means and medians

	// The thresholds of Warnings: R̂ above RhatLimit, bulk ESS below ESSLimit (see
	// NewMCMCHealth).
	RhatLimit, ESSLimit float64
}

// NewMCMCHealth computes the diagnostics of chains[c][i], draw i of chain c (a row of the
// parameters); all chains must have the same number of draws. It returns an error for no
// chains, ragged chains or non-finite draws.
//
// The thresholds are V21's (§4): R̂ above 1.01 and a bulk ESS below 400 signal trouble. For
// the short chains of a sampler vectorized over many chains they are adjusted so that chains
// that mix perfectly pass: RhatLimit is max(1.01, 1 + 4·SD), SD = 1/(h·√(2(2m−1))) the standard
// deviation of the split R̂ of m chains of independent draws split into halves of h draws (a
// false alarm about once in 30,000 parameters), and ESSLimit is min(400, S/10) for S draws in
// all (fewer than 400 draws cannot reach 400).
func NewMCMCHealth(sampler string, chains [][][]float64) (*MCMCHealth, error) {
	if len(chains) == 0 || len(chains[0]) == 0 {
		return nil, fmt.Errorf("MCMC health: no chains or no draws")
	}
	m, n, dim := len(chains), len(chains[0]), len(chains[0][0])
	h := &MCMCHealth{Sampler: sampler, Chains: m, Draws: n,
		RhatLimit: math.Max(1.01, 1+4*mcmc.RhatSD(m, n)), ESSLimit: math.Min(400, float64(m*n)/10)}
	traces := make([][][]float64, dim)
	for d := range traces {
		traces[d] = make([][]float64, m)
		for c, ch := range chains {
			if len(ch) != n {
				return nil, fmt.Errorf("MCMC health: chain %d has %d draws and chain 0 has %d, expected equal", c, len(ch), n)
			}
			traces[d][c] = make([]float64, n)
			for i, row := range ch {
				if len(row) != dim {
					return nil, fmt.Errorf("MCMC health: chain %d, draw %d has %d parameters, expected %d", c, i, len(row), dim)
				}
				traces[d][c][i] = row[d]
			}
		}
	}
	if n < mcmc.MinDraws {
		return h, nil
	}
	for d := range traces {
		if err := mcmc.Check(traces[d]); err != nil {
			return nil, fmt.Errorf("MCMC health, parameter %d: %w", d, err)
		}
		h.Rhat = append(h.Rhat, mcmc.SplitRhat(traces[d]))
		h.ESSBulk = append(h.ESSBulk, mcmc.ESSBulk(traces[d]))
	}
	return h, nil
}

// Assessed reports whether the chains were long enough (4 draws each) for the diagnostics.
func (h *MCMCHealth) Assessed() bool { return len(h.Rhat) > 0 }

// Warnings lists in words what the diagnostics flag: parameters whose R̂ exceeds RhatLimit
// (the chains disagree: stuck in different modes, or too short), whose bulk ESS is below
// ESSLimit, and whose chains are constant. It is empty for a healthy run and for one that
// could not be assessed (see Verdict).
func (h *MCMCHealth) Warnings() []string {
	var highR, lowESS, constant []string
	for d, r := range h.Rhat {
		name := fmt.Sprintf("θ%d", d+1)
		switch {
		case math.IsNaN(r):
			constant = append(constant, name)
			continue
		case r > h.RhatLimit:
			highR = append(highR, fmt.Sprintf("%s %.4f", name, r))
		}
		if h.ESSBulk[d] < h.ESSLimit {
			lowESS = append(lowESS, fmt.Sprintf("%s %.0f", name, h.ESSBulk[d]))
		}
	}
	var w []string
	if len(highR) > 0 {
		w = append(w, fmt.Sprintf("split R̂ above %.4f (%s): the %d chains disagree, so they have not mixed (stuck in different modes, or too short to show that they mixed); the draws do not represent the posterior: use more burn-in or more chains",
			h.RhatLimit, strings.Join(highR, ", "), h.Chains))
	}
	if len(lowESS) > 0 {
		w = append(w, fmt.Sprintf("bulk effective sample size below %.0f (%s) of %d draws: estimates from them are as noisy as from that many independent draws; draw more or thin more",
			h.ESSLimit, strings.Join(lowESS, ", "), h.Chains*h.Draws))
	}
	if len(constant) > 0 {
		w = append(w, fmt.Sprintf("constant chains (%s): the sampler did not move", strings.Join(constant, ", ")))
	}
	return w
}

// Verdict says in one sentence what the numbers support: "mixed well: …", "poor mixing: …", or
// "not assessed: …" when the chains were too short for the diagnostics.
func (h *MCMCHealth) Verdict() string {
	if !h.Assessed() {
		return fmt.Sprintf("not assessed: %d draws per chain, the split R̂ and ESS need at least %d: draw at least %d samples with %d chains",
			h.Draws, mcmc.MinDraws, mcmc.MinDraws*h.Chains, h.Chains)
	}
	if w := h.Warnings(); len(w) > 0 {
		return "poor mixing: " + strings.Join(w, "; ")
	}
	maxR, minESS := math.Inf(-1), math.Inf(1)
	for d := range h.Rhat {
		maxR, minESS = math.Max(maxR, h.Rhat[d]), math.Min(minESS, h.ESSBulk[d])
	}
	return fmt.Sprintf("mixed well: split R̂ ≤ %.4f (limit %.4f), bulk ESS ≥ %.0f (limit %.0f) over %d chains of %d draws",
		maxR, h.RhatLimit, minESS, h.ESSLimit, h.Chains, h.Draws)
}

// String is the verdict and one line per parameter.
func (h *MCMCHealth) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "MCMC health (%s, %d chains × %d draws): %s\n", h.Sampler, h.Chains, h.Draws, h.Verdict())
	for d := range h.Rhat {
		fmt.Fprintf(&b, "  θ%d  split R̂ %.4f  bulk ESS %6.0f\n", d+1, h.Rhat[d], h.ESSBulk[d])
	}
	return b.String()
}

// chainsOf splits chain-interleaved draws (row k·chains + c is draw k of chain c, as the slice
// sampler writes them) into chains, keeping the complete sweeps only.
func chainsOf(draws *mat.Dense, chains int) [][][]float64 {
	n, _ := draws.Dims()
	per := n / chains
	out := make([][][]float64, chains)
	for c := range out {
		out[c] = make([][]float64, per)
		for k := range out[c] {
			out[c][k] = draws.RawRowView(k*chains + c)
		}
	}
	return out
}

// MCMCHealth returns the diagnostics of the last draw made by MCMC (Method "mcmc"), nil
// before the first and when it kept no complete sweep of the chains. A draw whose chains did
// not mix also writes a warning to standard error.
func (p *RatioPosterior) MCMCHealth() *MCMCHealth {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.health
}

// recordHealth computes the diagnostics of the chain-interleaved draws of C chains, keeps them
// and warns when they flag the chains.
func (p *RatioPosterior) recordHealth(draws *mat.Dense, C int) {
	n, _ := draws.Dims()
	var h *MCMCHealth
	if n >= C {
		h, _ = NewMCMCHealth("slice", chainsOf(draws, C)) // the draws of a finite log-density are finite
	}
	p.mu.Lock()
	p.health = h
	p.mu.Unlock()
	if h == nil {
		return
	}
	if w := h.Warnings(); len(w) > 0 {
		fmt.Fprintf(warnOutput(), "sbi: warning: MCMC posterior (%d chains × %d draws): %s\n", h.Chains, h.Draws, strings.Join(w, "; "))
	}
}

// warnOutput returns where warnings are written, read at every warning because a notebook
// worker points os.Stderr at its own pipe; tests replace it.
var warnOutput = func() io.Writer { return os.Stderr }
