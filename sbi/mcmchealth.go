package sbi

import (
	"fmt"
	"html"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/internal/mcmc"
)

// MCMCHealth tells how well the chains of one MCMC run mixed: per parameter the
// rank-normalized split R̂ and the bulk and tail effective sample sizes of Vehtari et al.
// ("Rank-normalization, folding, and localization: an improved R̂", Bayesian Analysis 2021),
// and the sampler's own counts. Samplers that run chains report one with their draws
// (RatioPosterior.MCMCHealth); package diag computes one from any chains (diag.MCMCHealth) and
// package viz draws it.
type MCMCHealth struct {
	Sampler string // "slice" for the coordinate-wise slice sampler
	Chains  int
	Draws   int // draws per chain that the diagnostics use (complete sweeps, after burn-in and thinning)

	// Per parameter; NaN where a chain is constant. Empty when the run had fewer than
	// mcmc.MinDraws draws per chain: the split diagnostics then cannot be computed (Assessed
	// is false).
	Rhat    []float64 // rank-normalized split R̂, the larger of bulk and folded
	ESSBulk []float64 // bulk effective sample size, for means and medians
	ESSTail []float64 // tail effective sample size, for the 5% and 95% quantiles

	// Traces holds the draws the diagnostics use: Traces[d][c] is parameter d of chain c.
	Traces [][][]float64

	// Slice sampling: coordinate updates run, and how many times an interval end stepped out
	// and a proposal was rejected and the interval shrunk, over all chains after burn-in.
	// A sampler without these counts leaves them 0.
	Updates, StepOuts, Shrinks int
	// Acceptance is the share of accepted proposals of a Metropolis-type sampler; NaN for
	// samplers that always move (slice sampling).
	Acceptance float64

	// RhatLimit and ESSLimit are the thresholds of Warnings: see NewMCMCHealth.
	RhatLimit, ESSLimit float64

	// chainsSet is the Chains setting of the RatioPosterior whose draw this is, which runs
	// min(Chains, n) chains: Verdict's advice for chains too short needs it.
	chainsSet int
}

// NewMCMCHealth computes the diagnostics of draws from several chains: chains[c][i] is draw i
// of chain c, a row of the parameters. All chains must have the same number of draws. It
// returns an error for no chains, ragged chains, rows of no parameters or non-finite draws
// (whatever the chains' length); with fewer than 4 draws per chain the result has no
// diagnostics and says so.
//
// The thresholds follow Vehtari et al. (2021, §4): R̂ above 1.01 and an ESS below 400 signal
// trouble. Two adjustments keep them meaningful for the short chains of a vectorized sampler
// (100 chains of 10 draws, say): RhatLimit is max(1.01, 1 + 4·SD), where SD = 1/(h·√(2(2m−1)))
// is the standard deviation of the split R̂ of m chains of independent draws split into halves
// of h (so chains that mix perfectly pass with probability about 1 − 3·10⁻⁵ per parameter);
// ESSLimit is min(400, S/10) for S draws in all, since fewer than 400 draws cannot reach 400.
func NewMCMCHealth(sampler string, chains [][][]float64) (*MCMCHealth, error) {
	if len(chains) == 0 || len(chains[0]) == 0 {
		return nil, fmt.Errorf("MCMC health: no chains or no draws")
	}
	m, n, dim := len(chains), len(chains[0]), len(chains[0][0])
	if dim == 0 {
		return nil, fmt.Errorf("MCMC health: draws of no parameters, expected rows of at least one")
	}
	h := &MCMCHealth{Sampler: sampler, Chains: m, Draws: n, Acceptance: math.NaN()}
	h.Traces = make([][][]float64, dim)
	for d := range dim {
		h.Traces[d] = make([][]float64, m)
		for c, ch := range chains {
			if len(ch) != n {
				return nil, fmt.Errorf("MCMC health: chain %d has %d draws and chain 0 has %d, expected equal", c, len(ch), n)
			}
			h.Traces[d][c] = make([]float64, n)
			for i, row := range ch {
				if len(row) != dim {
					return nil, fmt.Errorf("MCMC health: chain %d, draw %d has %d parameters, expected %d", c, i, len(row), dim)
				}
				if v := row[d]; math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("MCMC health: chain %d, draw %d, parameter %d is %v: the diagnostics need finite draws", c, i, d, v)
				}
				h.Traces[d][c][i] = row[d]
			}
		}
	}
	h.RhatLimit = math.Max(1.01, 1+4*mcmc.RhatSD(m, n))
	h.ESSLimit = math.Min(400, float64(m*n)/10)
	if n < mcmc.MinDraws {
		return h, nil
	}
	for d := range dim {
		if err := mcmc.Check(h.Traces[d]); err != nil {
			return nil, fmt.Errorf("MCMC health, parameter %d: %w", d, err)
		}
		h.Rhat = append(h.Rhat, mcmc.SplitRhat(h.Traces[d]))
		h.ESSBulk = append(h.ESSBulk, mcmc.ESSBulk(h.Traces[d]))
		h.ESSTail = append(h.ESSTail, mcmc.ESSTail(h.Traces[d]))
	}
	return h, nil
}

// Assessed reports whether the chains were long enough (at least 4 draws each) for the
// diagnostics.
func (h *MCMCHealth) Assessed() bool { return len(h.Rhat) > 0 }

// MaxRhat is the largest R̂ over the parameters (NaN if any is NaN or none was computed).
func (h *MCMCHealth) MaxRhat() float64 {
	return extreme(h.Rhat, math.Max)
}

// MinESS is the smallest bulk or tail ESS over the parameters (NaN if any is NaN or none was
// computed).
func (h *MCMCHealth) MinESS() float64 {
	return math.Min(extreme(h.ESSBulk, math.Min), extreme(h.ESSTail, math.Min))
}

func extreme(v []float64, pick func(a, b float64) float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	out := v[0]
	for _, x := range v[1:] {
		if math.IsNaN(x) {
			return math.NaN()
		}
		out = pick(out, x)
	}
	return out
}

// Warnings lists, in words, what the diagnostics flag: parameters whose R̂ exceeds RhatLimit
// (the chains disagree: they have not mixed, e.g. stuck in different modes), whose bulk or tail
// ESS is below ESSLimit, and whose chains are constant. It is empty for a healthy run and for
// one that could not be assessed (see Verdict).
func (h *MCMCHealth) Warnings() []string {
	var w []string
	var highR, lowESS, constant []string
	for d := range h.Rhat {
		name := fmt.Sprintf("θ%d", d+1)
		switch {
		case math.IsNaN(h.Rhat[d]):
			constant = append(constant, name)
		case h.Rhat[d] > h.RhatLimit:
			highR = append(highR, fmt.Sprintf("%s %.3f", name, h.Rhat[d]))
		}
		if e := math.Min(h.ESSBulk[d], h.ESSTail[d]); e < h.ESSLimit {
			lowESS = append(lowESS, fmt.Sprintf("%s %.0f", name, e))
		}
	}
	if len(highR) > 0 {
		w = append(w, fmt.Sprintf("R̂ above %.3g (%s): the %d chains disagree: either they are too short to have mixed, or they sit in separate modes that they do not cross; in that case the pooled draws weight each mode by the share of chains in it, which the sampler's initialization (one sampling-importance-resampling draw per chain) makes the mode's mass up to the binomial noise of the chain count, but which nothing after it corrects: compare with more chains and a longer burn-in, or with importance sampling",
			h.RhatLimit, strings.Join(highR, ", "), h.Chains))
	}
	if len(lowESS) > 0 {
		w = append(w, fmt.Sprintf("effective sample size below %.0f (%s) of %d draws: estimates from these draws are as noisy as from that many independent ones; draw more or thin more",
			h.ESSLimit, strings.Join(lowESS, ", "), h.Chains*h.Draws))
	}
	if len(constant) > 0 {
		w = append(w, fmt.Sprintf("constant chains (%s): the sampler did not move", strings.Join(constant, ", ")))
	}
	return w
}

// Verdict says in one sentence what the numbers support: "mixed well: …", "poor mixing: …",
// or "not assessed: …" when the chains were too short for the diagnostics, with the number of
// samples to draw for chains long enough.
func (h *MCMCHealth) Verdict() string {
	if !h.Assessed() {
		if h.chainsSet > h.Chains {
			return fmt.Sprintf("not assessed: %d draws per chain, the split R̂ and ESS need at least %d; draw at least %d samples (the sampler runs Chains = %d chains, or one per sample when fewer), or set Chains to at most n/%d for n samples",
				h.Draws, mcmc.MinDraws, mcmc.MinDraws*h.chainsSet, h.chainsSet, mcmc.MinDraws)
		}
		return fmt.Sprintf("not assessed: %d draws per chain, the split R̂ and ESS need at least %d; draw at least %d samples with %d chains",
			h.Draws, mcmc.MinDraws, mcmc.MinDraws*h.Chains, h.Chains)
	}
	if w := h.Warnings(); len(w) > 0 {
		return "poor mixing: " + strings.Join(w, "; ")
	}
	return fmt.Sprintf("mixed well: R̂ ≤ %.3f (limit %.3g), ESS ≥ %.0f (limit %.0f) over %d chains of %d draws",
		h.MaxRhat(), h.RhatLimit, h.MinESS(), h.ESSLimit, h.Chains, h.Draws)
}

// String is a short text summary with one line per parameter.
func (h *MCMCHealth) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "MCMC health (%s, %d chains × %d draws): %s\n", h.Sampler, h.Chains, h.Draws, h.Verdict())
	for d := range h.Rhat {
		fmt.Fprintf(&b, "  θ%d  R̂ %.4f  bulk ESS %6.0f  tail ESS %6.0f\n", d+1, h.Rhat[d], h.ESSBulk[d], h.ESSTail[d])
	}
	if h.Updates > 0 {
		fmt.Fprintf(&b, "  slice updates %d: %.2f step-outs and %.2f shrinks per update\n", h.Updates,
			float64(h.StepOuts)/float64(h.Updates), float64(h.Shrinks)/float64(h.Updates))
	}
	if !math.IsNaN(h.Acceptance) {
		fmt.Fprintf(&b, "  acceptance rate %.3f\n", h.Acceptance)
	}
	return b.String()
}

// MIMEBundle shows the diagnostics as an HTML table (values past a limit in bold vermillion)
// and as text. viz.MCMC draws the traces and rank plots.
func (h *MCMCHealth) MIMEBundle() map[string]any {
	var b strings.Builder
	fmt.Fprintf(&b, "<div><b>MCMC health</b> — %s, %d chains × %d draws: <i>%s</i>", html.EscapeString(h.Sampler), h.Chains, h.Draws, html.EscapeString(h.Verdict()))
	if h.Assessed() {
		bad := ` style="color:#D55E00;font-weight:bold"`
		b.WriteString(`<table style="font-size:90%"><tr><th></th><th>R̂</th><th>bulk ESS</th><th>tail ESS</th></tr>`)
		for d := range h.Rhat {
			rs, bs, ts := "", "", ""
			if !(h.Rhat[d] <= h.RhatLimit) {
				rs = bad
			}
			if !(h.ESSBulk[d] >= h.ESSLimit) {
				bs = bad
			}
			if !(h.ESSTail[d] >= h.ESSLimit) {
				ts = bad
			}
			fmt.Fprintf(&b, "<tr><th>θ%d</th><td%s>%.4f</td><td%s>%.0f</td><td%s>%.0f</td></tr>", d+1, rs, h.Rhat[d], bs, h.ESSBulk[d], ts, h.ESSTail[d])
		}
		b.WriteString("</table>")
	}
	if h.Updates > 0 {
		fmt.Fprintf(&b, "<div>slice sampling: %.2f step-outs and %.2f shrinks per coordinate update</div>",
			float64(h.StepOuts)/float64(h.Updates), float64(h.Shrinks)/float64(h.Updates))
	}
	b.WriteString("</div>")
	return map[string]any{"text/html": b.String(), "text/plain": h.String()}
}

// chainsOf splits chain-interleaved draws (row k·chains + c is draw k of chain c, as the slice
// sampler writes them) into chains, keeping the complete sweeps only.
func chainsOf(draws *mat.Dense, chains int) [][][]float64 {
	n, _ := draws.Dims()
	per := n / chains
	out := make([][][]float64, chains)
	for c := range out {
		out[c] = make([][]float64, per)
		for k := range per {
			out[c][k] = draws.RawRowView(k*chains + c)
		}
	}
	return out
}

// health returns the diagnostics of the draws the sampler wrote (chain-interleaved) with its
// update counts; nil when no complete sweep was kept.
func (s *sliceSampler) health(draws *mat.Dense) *MCMCHealth {
	C, _ := s.x.Dims()
	n, _ := draws.Dims()
	if n < C {
		return nil
	}
	h, err := NewMCMCHealth("slice", chainsOf(draws, C))
	if err != nil {
		return nil // non-finite draws cannot come from a chain on a finite log-density
	}
	h.Updates, h.StepOuts, h.Shrinks = s.updates, s.stepOuts, s.shrinks
	return h
}

// MCMCHealth returns the diagnostics of the last draw made by MCMC (Method "mcmc"): R̂, bulk
// and tail ESS per parameter and the slice sampler's counts; nil before the first MCMC draw
// and when it kept no complete sweep of the chains. A posterior that samples otherwise has
// none: "auto" (the default) samples on a grid for at most 3 parameters with a bounded prior,
// so that its diagnostics need PosteriorWith or PosteriorTrialsWith with
// SamplerConfig{Method: "mcmc"}. A draw whose chains did not mix also prints a warning (see
// MCMCHealth.Warnings), except a draw for one test pair of a diagnostic of package diag,
// which says once for all its pairs how many were flagged.
func (p *RatioPosterior) MCMCHealth() *MCMCHealth {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.health
}

// recordHealth keeps h as the diagnostics of the last MCMC draw and, with warn, warns when it
// flags the chains (a loop over test pairs gathers them instead: see nested).
func (p *RatioPosterior) recordHealth(h *MCMCHealth, warn bool) {
	p.mu.Lock()
	p.health = h
	p.mu.Unlock()
	if h == nil || !warn {
		return
	}
	if w := h.Warnings(); len(w) > 0 {
		warnf("mcmc", "MCMC posterior (%d chains × %d draws): %s", h.Chains, h.Draws, strings.Join(w, "; "))
	}
}
