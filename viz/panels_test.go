package viz

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/diag"
)

// TestPanelsLeftOutSaid: MCMC draws at most MaxMCMCParams parameters and PredictiveCheck at
// most MaxPredictivePanels data values; a result with more made a figure of the first ones
// whose legend did not say that the others were left out. The legend now says how many are
// drawn of how many, and says nothing more when all are.
func TestPanelsLeftOutSaid(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	health := func(params int) *sbi.MCMCHealth {
		h := &sbi.MCMCHealth{Sampler: "test", Chains: 2, Draws: 20, Traces: make([][][]float64, params), Acceptance: math.NaN()}
		for d := range h.Traces {
			for range 2 {
				ch := make([]float64, 20)
				for i := range ch {
					ch[i] = rng.NormFloat64()
				}
				h.Traces[d] = append(h.Traces[d], ch)
			}
		}
		return h
	}
	predictive := func(values int) *diag.PredictiveResult {
		r := &diag.PredictiveResult{Label: "prior predictive", Sims: mat.NewDense(50, values, nil), MahalanobisP: 0.5, MMDP: 0.5, Alpha: 0.05}
		for d := range values {
			r.Names = append(r.Names, fmt.Sprintf("x%d", d+1))
			r.Observation = append(r.Observation, 0)
			r.Quantile = append(r.Quantile, 0.5)
			r.PValues = append(r.PValues, 0.5)
			for i := range 50 {
				r.Sims.Set(i, d, rng.NormFloat64())
			}
		}
		return r
	}
	for _, c := range []struct {
		name  string
		plot  *Plot
		entry string // "" for no entry about panels left out
	}{
		{"MCMC at the limit", MCMC(health(MaxMCMCParams)), ""},
		{"MCMC over the limit", MCMC(health(MaxMCMCParams + 4)), fmt.Sprintf("%d of %d parameters (the first)", MaxMCMCParams, MaxMCMCParams+4)},
		{"predictive at the limit", PredictiveCheck(predictive(MaxPredictivePanels)), ""},
		{"predictive over the limit", PredictiveCheck(predictive(MaxPredictivePanels + 1)),
			fmt.Sprintf("%d of %d data values (flagged first)", MaxPredictivePanels, MaxPredictivePanels+1)},
	} {
		if _, err := c.plot.PNG(); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		got := c.plot.Legend()
		said := slices.ContainsFunc(got, func(e string) bool { return e == c.entry })
		left := slices.ContainsFunc(got, func(e string) bool {
			return strings.Contains(e, "parameters (the first)") || strings.Contains(e, "data values (flagged first)")
		})
		switch {
		case c.entry == "" && left:
			t.Errorf("%s: legend %q says panels are left out; none are", c.name, got)
		case c.entry != "" && !said:
			t.Errorf("%s: legend %q, want the entry %q", c.name, got, c.entry)
		}
	}
}
