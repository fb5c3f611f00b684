// Command allowance measures the error of the library's estimators on the conformance suite's
// task at the suite's budget, the measure that sbitest.DefaultAllowance and
// sbitest.EmbeddingAllowance are set from:
//
//	go run ./tools/allowance [-seeds 10] [-group default]
//
// For each estimator of the group, with the settings of its conformance test in package sbi,
// and each training seed 1 to seeds, it prints sbitest.EstimatorError: the largest error of the
// posterior's moments at the suite's three observations, in posterior standard deviations.
// Then it prints each estimator's largest error over the seeds, the largest of all, and the
// ratio of the group's allowance to it. Group default is the estimators that run the suite at
// its default budget and allowance; group embedding those that run it at TestEmbedding's (4
// trials, 10,000 simulations). Run it without -race: the race detector shrinks the budget.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/sbitest"
)

// estimator is one estimator of a group, made as its conformance test makes it.
type estimator struct {
	name string
	make func(prior dist.Distribution) sbitest.Estimator
}

// group is a set of estimators with the suite's configuration and allowance they run with.
type group struct {
	cfg        sbitest.Config
	allowance  float64
	estimators []estimator
}

// fewChains is the sampler of the likelihood estimators' conformance tests; it does not enter
// the measure (LogProb by quadrature) but keeps the estimators as they are tested.
var fewChains = sbi.SamplerConfig{Chains: 20, BurnIn: 100}

func groups() map[string]group {
	maf := sbi.NPEConfig{Flow: sbi.MAF, Hidden: 32, Transforms: 2}
	nre := func(loss sbi.NRELoss) func(dist.Distribution) sbitest.Estimator {
		return func(p dist.Distribution) sbitest.Estimator {
			return sbi.NewNRE(p, sbi.NREConfig{Hidden: []int{32, 32}, Loss: loss})
		}
	}
	nle := func(cfg sbi.NLEConfig) func(dist.Distribution) sbitest.Estimator {
		cfg.Hidden, cfg.Transforms, cfg.Sampler = 32, 2, fewChains
		return func(p dist.Distribution) sbitest.Estimator { return sbi.NewNLE(p, cfg) }
	}
	fmpe := sbi.FMPEConfig{Hidden: 32, Layers: 2, RelTol: 1e-4, AbsTol: 1e-5}
	npeEmb := func(emb sbi.Embedding) func(dist.Distribution) sbitest.Estimator {
		return func(p dist.Distribution) sbitest.Estimator {
			return sbi.NewNPE(p, sbi.NPEConfig{Hidden: 32, Transforms: 2, Embedding: emb})
		}
	}
	fmpeEmb := fmpe
	fmpeEmb.Embedding = sbi.MLPEmbedding{Hidden: []int{32}, Out: 4}
	return map[string]group{
		"default": {sbitest.Config{}, sbitest.DefaultAllowance, []estimator{
			{"NPE MAF", func(p dist.Distribution) sbitest.Estimator { return sbi.NewNPE(p, maf) }},
			{"NPE NSF", func(p dist.Distribution) sbitest.Estimator {
				return sbi.NewNPE(p, sbi.NPEConfig{Flow: sbi.NSF, Hidden: 32, Transforms: 2, Bins: 6})
			}},
			{"NRE", nre(sbi.NREA)},
			{"NRE-B", nre(sbi.NREB)},
			{"NRE-C", nre(sbi.NREC)},
			{"NLE MAF", nle(sbi.NLEConfig{Flow: sbi.MAF})},
			{"NLE NSF", nle(sbi.NLEConfig{Flow: sbi.NSF, Bins: 6})},
			{"NLE MLP embedding", nle(sbi.NLEConfig{Flow: sbi.MAF, Embedding: sbi.MLPEmbedding{Hidden: []int{32}, Out: 8}})},
			{"MNLE", func(p dist.Distribution) sbitest.Estimator {
				return sbitest.WithCoin(sbi.NewMNLE(p, sbi.MNLEConfig{Hidden: 32, Sampler: fewChains}))
			}},
			{"FMPE", func(p dist.Distribution) sbitest.Estimator { return sbi.NewFMPE(p, fmpe) }},
			{"NPE ensemble of 2", func(p dist.Distribution) sbitest.Estimator {
				return sbi.MustNewNPEEnsemble(sbi.NewNPE(p, maf), sbi.NewNPE(p, maf))
			}},
			{"NRE ensemble of 2", func(p dist.Distribution) sbitest.Estimator {
				cfg := sbi.NREConfig{Hidden: []int{32, 32}}
				return sbi.MustNewNREEnsemble(sbi.NewNRE(p, cfg), sbi.NewNRE(p, cfg))
			}},
		}},
		"embedding": {sbitest.Config{Trials: 4, Simulations: 10_000}, sbitest.EmbeddingAllowance, []estimator{
			{"NPE MLP", npeEmb(sbi.MLPEmbedding{Hidden: []int{32}, Out: 4})},
			{"NPE CNN1D", npeEmb(sbi.CNN1DEmbedding{Channels: 3, Conv: []int{16, 16}, Kernel: 3, Hidden: []int{32}, Out: 4})},
			{"NPE CNN2D", npeEmb(sbi.CNN2DEmbedding{Height: 2, Width: 2, Conv: []int{16}, Hidden: []int{32}, Out: 4})},
			{"NPE DeepSet", npeEmb(sbi.DeepSetEmbedding{TrialDim: 3, Hidden: []int{32}, Features: 16, Head: []int{32}, Out: 4})},
			{"NPE GRU", npeEmb(sbi.GRUEmbedding{Channels: 3, Hidden: 16, Out: 4})},
			{"FMPE MLP", func(p dist.Distribution) sbitest.Estimator { return sbi.NewFMPE(p, fmpeEmb) }},
		}},
	}
}

func main() {
	seeds := flag.Int("seeds", 10, "training seeds 1 to seeds per estimator")
	name := flag.String("group", "default", "estimators to measure: default or embedding")
	flag.Parse()
	g, err := checkArgs(*seeds, *name, flag.Args())
	if err == nil {
		err = run(g, *seeds)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "allowance:", err)
		os.Exit(1)
	}
}

// checkArgs returns the group of name, checked with the other arguments before anything is
// trained.
func checkArgs(seeds int, name string, args []string) (group, error) {
	if len(args) > 0 {
		return group{}, fmt.Errorf("unexpected arguments %q: give the group with -group", args)
	}
	if seeds < 1 {
		return group{}, fmt.Errorf("-seeds %d: expected at least 1", seeds)
	}
	g, ok := groups()[name]
	if !ok {
		return group{}, fmt.Errorf("unknown group %q: expected default or embedding", name)
	}
	return g, nil
}

// run measures every estimator of g at seeds 1 to seeds and prints the errors.
func run(g group, seeds int) error {
	worst, worstName := 0.0, ""
	for _, e := range g.estimators {
		top, topSeed := 0.0, 0
		for seed := 1; seed <= seeds; seed++ {
			cfg := g.cfg
			cfg.Train.Seed = uint64(seed)
			v, err := sbitest.EstimatorError(e.make, cfg)
			if err != nil {
				return fmt.Errorf("%s, seed %d: %w", e.name, seed, err)
			}
			fmt.Printf("%-20s seed %2d  %.3f\n", e.name, seed, v)
			if v > top {
				top, topSeed = v, seed
			}
		}
		fmt.Printf("%-20s largest %.3f (seed %d)\n", e.name, top, topSeed)
		if top > worst {
			worst, worstName = top, e.name
		}
	}
	fmt.Printf("largest error %.3f (%s); allowance %.2f = %.2f × it\n", worst, worstName, g.allowance, g.allowance/worst)
	if worst == 0 || math.IsNaN(worst) {
		return fmt.Errorf("largest error %v: the ratio cannot be stated", worst)
	}
	return nil
}
