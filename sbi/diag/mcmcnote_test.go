package diag

import (
	"strings"
	"sync"
	"testing"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
)

// mcmcModel is gaussModel whose posteriors say they sample by method, as an NLE's or NRE's do.
type mcmcModel struct {
	gaussModel
	method sbi.SamplerMethod
}

type methodPost struct {
	gaussPost
	method sbi.SamplerMethod
}

func (p methodPost) Method() sbi.SamplerMethod { return p.method }

func (m mcmcModel) Posterior(x []float64) sbi.Posterior { return methodPost{m.post(x), m.method} }

// TestRankCoverageSaysMCMC requires the progress of RankCoverage, SBC and TARP to say, for
// posteriors that sample by MCMC, that each pair runs MCMC and how to make it cheaper, and to
// say nothing of it for posteriors that sample otherwise.
func TestRankCoverageSaysMCMC(t *testing.T) {
	var mu sync.Mutex
	var msgs []string
	runenv.SetProgress(func(e runenv.ProgressEvent) { mu.Lock(); msgs = append(msgs, e.Message); mu.Unlock() })
	defer runenv.SetProgress(nil)
	g := gaussModel{dim: 2, tau: 1, s: 0.5, width: 1}
	theta, x := g.simulate(3, 20)
	passes := map[string]func(sbi.Amortized) error{
		"RankCoverage": func(e sbi.Amortized) error {
			_, err := RankCoverage(e, theta, x, RankConfig{Samples: 20, Seed: 1})
			return err
		},
		"SBC": func(e sbi.Amortized) error { _, err := SBC(e, theta, x, RankConfig{Samples: 20, Seed: 1}); return err },
	}
	for name, pass := range passes {
		for _, method := range []sbi.SamplerMethod{sbi.SamplerMCMC, sbi.SamplerGrid} {
			msgs = nil
			if err := pass(mcmcModel{g, method}); err != nil {
				t.Fatal(err)
			}
			said := false
			for _, m := range msgs {
				said = said || (strings.Contains(m, "sampled by MCMC") && strings.Contains(m, `Method: "importance"`) && strings.Contains(m, "BurnIn"))
			}
			if said != (method == sbi.SamplerMCMC) {
				t.Errorf("%s, posteriors sampled by %q: progress messages %q, want the MCMC note only for mcmc", name, method, msgs)
			}
		}
	}
}
