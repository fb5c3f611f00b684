package diag

import (
	"bytes"
	"context"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/internal/nested"
	"gonum.org/v1/gonum/mat"
)

// ctxModel is gaussModel whose posteriors sample under a context and count how many of their
// draws ran under a context that nested.Context marked; with health, they report MCMC health
// (none to warn of), as a RatioPosterior does.
type ctxModel struct {
	gaussModel
	health bool
	nested *atomic.Int64
}

func (m ctxModel) Posterior(x []float64) sbi.Posterior {
	p := ctxPost{m.post(x), m.nested}
	if m.health {
		return healthPost{p}
	}
	return p
}

func (m ctxModel) LogProbPairs(theta, x *mat.Dense) []float64 {
	return pairLogProbs(m.Posterior, theta, x)
}

// ctxPost stands for a posterior that wraps a RatioPosterior and passes its context down, so
// that the sampler it wraps reports (or leaves to the loop) its progress and chain warnings.
type ctxPost struct {
	gaussPost
	nested *atomic.Int64
}

func (p ctxPost) SampleContext(ctx context.Context, rng *rand.Rand, n int) (*mat.Dense, error) {
	if nested.In(ctx) {
		p.nested.Add(1)
	}
	return p.Sample(rng, n), nil
}

type healthPost struct{ ctxPost }

func (healthPost) MCMCHealth() *sbi.MCMCHealth { return nil }

// TestPairContextNestedForHealthOnly checks that a diagnostic's loop over test pairs marks the
// context of a pair's sampling as nested (its sampler then leaves its warnings to the loop)
// only for a posterior that reports its MCMC health to the loop: a posterior that wraps a
// RatioPosterior and reports none would otherwise silence the sampler's warnings, and the loop
// would have nothing to say in their place.
func TestPairContextNestedForHealthOnly(t *testing.T) {
	for _, c := range []struct {
		health bool
		want   int64
	}{{false, 0}, {true, 6}} {
		var n atomic.Int64
		m := ctxModel{gaussModel{dim: 1, tau: 1, s: 0.5, width: 1}, c.health, &n}
		theta, x := m.simulate(1, 6)
		if _, err := RankCoverage(m, theta, x, RankConfig{Samples: 20, Seed: 1}); err != nil {
			t.Fatal(err)
		}
		if got := n.Load(); got != c.want {
			t.Errorf("posterior with MCMCHealth %v: %d of 6 pairs sampled under a nested context, want %d", c.health, got, c.want)
		}
	}
}

// fixedHealth is a posterior that reports the MCMC health h.
type fixedHealth struct {
	gaussPost
	h *sbi.MCMCHealth
}

func (p fixedHealth) MCMCHealth() *sbi.MCMCHealth { return p.h }

// TestChainTallyWarning checks the loop's one warning about its pairs' chains: the extremes
// of R-hat and ESS over the flagged pairs, and, where every flagged chain was constant (R-hat
// and ESS NaN), that they are undefined rather than ∓Inf.
func TestChainTallyWarning(t *testing.T) {
	health := func(rhat, ess float64) *sbi.MCMCHealth {
		return &sbi.MCMCHealth{Chains: 4, Draws: 50, Rhat: []float64{rhat}, ESSBulk: []float64{ess}, ESSTail: []float64{ess},
			RhatLimit: 1.01, ESSLimit: 20}
	}
	defer func(f func() io.Writer) { warnOutput = f }(warnOutput)
	nan := math.NaN()
	for _, c := range []struct {
		name   string
		pairs  []*sbi.MCMCHealth
		want   []string
		forbid []string
	}{
		{"mixed badly", []*sbi.MCMCHealth{health(1.5, 3), health(nan, nan)},
			[]string{"2 of 2 test pairs", "largest R-hat 1.5", "smallest ESS 3"}, []string{"Inf", "undefined"}},
		{"constant chains", []*sbi.MCMCHealth{health(nan, nan), health(1, 100)},
			[]string{"1 of 2 test pairs", "R-hat and ESS undefined: every flagged chain was constant"}, []string{"Inf"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			warnOutput = func() io.Writer { return &buf }
			var tally chainTally
			for i, h := range c.pairs {
				tally.add(i, fixedHealth{h: h})
			}
			tally.warn("test", len(c.pairs))
			got := buf.String()
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("warning %q does not say %q", got, w)
				}
			}
			for _, f := range c.forbid {
				if strings.Contains(got, f) {
					t.Errorf("warning %q says %q", got, f)
				}
			}
		})
	}
}
