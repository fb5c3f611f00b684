package viz

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi"
)

// TestMCMCNonFiniteChains: a chain holding NaN or ±Inf draws (a health built by hand) cannot
// be drawn; the legend then says how many chains are drawn and that the others are left out
// for their non-finite draws, instead of "N of N chains" above fewer lines. The chains drawn
// are the same in every panel, their rank counts are among the draws drawn, and a health
// without traces, ragged, or with R-hat for fewer parameters is an error, not a division by zero
// or an index panic.
func TestMCMCNonFiniteChains(t *testing.T) {
	health := func(chains int, bad map[[2]int]float64) *sbi.MCMCHealth {
		rng := rand.New(rand.NewPCG(7, 7))
		h := &sbi.MCMCHealth{Sampler: "test", Chains: chains, Draws: 50, Traces: make([][][]float64, 2), Acceptance: math.NaN()}
		for d := range h.Traces {
			for range chains {
				ch := make([]float64, 50)
				for i := range ch {
					ch[i] = rng.NormFloat64()
				}
				h.Traces[d] = append(h.Traces[d], ch)
			}
		}
		for dc, v := range bad {
			h.Traces[dc[0]][dc[1]][10] = v
		}
		return h
	}
	for _, c := range []struct {
		name   string
		h      *sbi.MCMCHealth
		legend string
		drawn  []int // chains drawn in every panel
	}{
		{"finite", health(4, nil), "4 of 4 chains", []int{0, 1, 2, 3}},
		{"NaN in one parameter", health(4, map[[2]int]float64{{1, 2}: math.NaN()}),
			"3 of 4 chains (1 with NaN or ±Inf draws left out)", []int{0, 1, 3}},
		{"Inf and NaN", health(4, map[[2]int]float64{{0, 0}: math.Inf(1), {1, 3}: math.NaN()}),
			"2 of 4 chains (2 with NaN or ±Inf draws left out)", []int{1, 2}},
		{"over the limit", health(10, map[[2]int]float64{{0, 1}: math.NaN()}),
			"8 of 10 chains (1 with NaN or ±Inf draws left out)", []int{0, 2, 3, 4, 5, 6, 7, 8}},
	} {
		noPanic(t, c.name, func() {
			p := MCMC(c.h)
			if got := p.Legend(); len(got) == 0 || got[0] != c.legend {
				t.Errorf("%s: legend %q, want %q first", c.name, got, c.legend)
			}
			if _, err := p.PNG(); err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			for d := range c.h.Traces {
				lay := mcmcLayers(c.h, d)
				if !slices.Equal(lay.chains, c.drawn) {
					t.Errorf("%s θ%d: chains drawn %v, want %v", c.name, d+1, lay.chains, c.drawn)
					continue
				}
				for k, ch := range lay.chains {
					var s float64
					for _, v := range lay.ranks[k] {
						s += v
					}
					if !slices.Equal(lay.traces[k], c.h.Traces[d][ch]) || s != 50 {
						t.Errorf("%s θ%d: chain %d drawn with rank counts summing to %v, want its trace and 50", c.name, d+1, ch, s)
					}
				}
			}
		})
	}
	for _, c := range []struct {
		name string
		h    *sbi.MCMCHealth
		want string
	}{
		{"nil", nil, "viz: MCMC: no result"},
		{"no traces", &sbi.MCMCHealth{Chains: 4}, "viz: MCMC: the result cannot be drawn: it holds no traces"},
		{"ragged", func() *sbi.MCMCHealth { h := health(4, nil); h.Traces[1] = h.Traces[1][:3]; return h }(),
			"viz: MCMC: the result cannot be drawn: parameter 2 holds 3 chains, parameter 1 holds 4"},
		{"short R-hat", func() *sbi.MCMCHealth {
			h := health(4, nil)
			h.Rhat, h.ESSBulk = []float64{1}, []float64{100}
			return h
		}(),
			"viz: MCMC: the result cannot be drawn: it holds R-hat of 1 parameters and bulk ESS of 1 for traces of 2"},
	} {
		noPanic(t, c.name, func() {
			if _, err := MCMC(c.h).PNG(); err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("%s: PNG error %v, want one starting %q", c.name, err, c.want)
			}
		})
	}
}
