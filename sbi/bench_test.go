package sbi

import (
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/sbi/internal/cputime"
	"github.com/gosbi/gosbi/sbi/nn"
)

// benchStep times one optimization step (forward, backward, clipping, Adam) of a model on
// batches of 128 pairs with 2 parameters and 2 data values, the shape of two_moons.
func benchStep(b *testing.B, m model, train func() error) {
	if err := train(); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	_, theta, x := gaussianPairs(rng, 10000)
	c := m.(interface{ core() *estimator }).core() // every model's core: its standardization
	d := &trainData{theta: theta, x: x, thetaZ: c.zt.apply(theta), xZ: c.zx.apply(x)}
	st := step{tp: nn.NewTape(), m: m, d: d, rng: rng, opt: nn.NewAdam(m.params(), 5e-4), clip: 5}
	perm := rng.Perm(10000)
	if _, _, _, err := st.run(perm[:128]); err != nil { // sizes the tape's buffers
		b.Fatal(err)
	}
	i := 0
	cputime.Report(b, func() {
		lo := (i * 128) % (10000 - 128)
		i++
		if _, _, _, err := st.run(perm[lo : lo+128]); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkNPENSFStep is the step of the reference NPE: NSF, 5 transforms, MADEs of 2×64,
// 8 bins, batch 128 (reference: lampe/zuko on PyTorch CPU, 2 threads, 10.1 ms).
func BenchmarkNPENSFStep(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	prior, theta, x := gaussianPairs(rng, 300)
	e := NewNPE(prior, NPEConfig{Flow: "nsf", Transforms: 5, Hidden: 64, Layers: 2, Bins: 8})
	benchStep(b, (*npeModel)(e), func() error { _, err := e.Train(theta, x, TrainConfig{Epochs: 1}); return err })
}

// BenchmarkNREStep is the step of an NRE with an MLP of 3×64, batch 128 joint + 128 marginal
// pairs (reference 1.56 ms).
func BenchmarkNREStep(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	prior, theta, x := gaussianPairs(rng, 300)
	e := NewNRE(prior, NREConfig{Hidden: []int{64, 64, 64}})
	benchStep(b, (*nreModel)(e), func() error { _, err := e.Train(theta, x, TrainConfig{Epochs: 1}); return err })
}

// BenchmarkNLEStep is the step of an NLE with sbi's default likelihood flow: MAF, 5
// transforms, MADEs of 2×50 (tanh), x of 2 values given θ of 2, batch 128 (PyTorch twin
// nle-maf-step in tools/benchmarks).
func BenchmarkNLEStep(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	prior, theta, x := gaussianPairs(rng, 300)
	e := NewNLE(prior, NLEConfig{})
	benchStep(b, (*nleModel)(e), func() error { _, err := e.Train(theta, x, TrainConfig{Epochs: 1}); return err })
}
