package sbi_test

import (
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/internal/cputime"
	"github.com/gosbi/gosbi/sbi/task"
	"gonum.org/v1/gonum/mat"
)

// twoMoons returns n simulated two_moons pairs.
func twoMoons(b *testing.B, n int) (task.Task, *mat.Dense, *mat.Dense) {
	t, err := task.Get("two_moons")
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	theta := t.Prior().Sample(rng, n)
	return t, theta, t.Simulate(rng, theta)
}

// referenceNSF is the NPE of the reference timings: NSF, 5 transforms, MADEs of 2×64, 8 bins.
var referenceNSF = sbi.NPEConfig{Flow: "nsf", Transforms: 5, Hidden: 64, Layers: 2, Bins: 8}

// BenchmarkNPEEpoch is one epoch of NPE-NSF over 10,000 two_moons pairs in batches of 128,
// with standardization and network construction (reference 0.80 s).
func BenchmarkNPEEpoch(b *testing.B) {
	t, theta, x := twoMoons(b, 10000)
	cputime.Report(b, func() {
		e := sbi.NewNPE(t.Prior(), referenceNSF)
		if _, err := e.Train(theta, x, sbi.TrainConfig{Epochs: 1, BatchSize: 128, ValidationFraction: -1}); err != nil {
			b.Fatal(err)
		}
	})
}

func trainedNSF(b *testing.B) (*sbi.NPE, *mat.Dense, *mat.Dense) {
	t, theta, x := twoMoons(b, 2000)
	e := sbi.NewNPE(t.Prior(), referenceNSF)
	if _, err := e.Train(theta, x, sbi.TrainConfig{Epochs: 2, BatchSize: 128}); err != nil {
		b.Fatal(err)
	}
	_, theta, x = twoMoons(b, 10000)
	return e, theta, x
}

// BenchmarkNPELogProb10k is log q(θᵢ | xᵢ) of 10,000 pairs with the reference NSF (reference 43 ms).
func BenchmarkNPELogProb10k(b *testing.B) {
	e, theta, x := trainedNSF(b)
	cputime.Report(b, func() { e.LogProbPairs(theta, x) })
}

// BenchmarkNPESample10k draws 10,000 posterior samples for one observation with the
// reference NSF (reference 77 ms).
func BenchmarkNPESample10k(b *testing.B) {
	e, _, x := trainedNSF(b)
	post := e.Posterior(x.RawRowView(0))
	rng := rand.New(rand.NewPCG(3, 4))
	cputime.Report(b, func() { post.Sample(rng, 10000) })
}

// BenchmarkNLESlice10k draws 10,000 posterior samples of an NLE (sbi's default MAF, 5 × 2×50)
// for one two_moons observation by slice sampling with the default sampler settings (100
// chains, 200 sweeps of burn-in, every 5th sweep kept), the initialization by importance
// resampling of 1000 prior draws included. The NLE is trained for one epoch only, so that its
// posterior is close to the prior box, as that of the PyTorch twin (nle-maf-slice-10k in
// tools/benchmarks), whose flow is untrained: the samplers then do the same work.
func BenchmarkNLESlice10k(b *testing.B) {
	t, theta, x := twoMoons(b, 2000)
	e := sbi.NewNLE(t.Prior(), sbi.NLEConfig{})
	if _, err := e.Train(theta, x, sbi.TrainConfig{Epochs: 1, BatchSize: 128}); err != nil {
		b.Fatal(err)
	}
	post := e.PosteriorWith(x.RawRowView(0), sbi.SamplerConfig{Method: sbi.SamplerMCMC})
	rng := rand.New(rand.NewPCG(3, 4))
	cputime.Report(b, func() { post.Sample(rng, 10000) })
}
