package diag_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/sbi/task"
)

// twoMoonsPairs trains est briefly on two_moons (the benchmarks time coverage, not training)
// and returns 10,000 fresh test pairs.
func twoMoonsPairs(b *testing.B, est interface {
	Train(theta, x *mat.Dense, cfg sbi.TrainConfig) (*sbi.TrainResult, error)
}) (theta, x *mat.Dense) {
	b.Helper()
	t := task.TwoMoons()
	rng := rand.New(rand.NewPCG(7, 8))
	th := t.Prior().Sample(rng, 2000)
	if _, err := est.Train(th, t.Simulate(rng, th), sbi.TrainConfig{Epochs: 5, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	theta = t.Prior().Sample(rng, 10000)
	return theta, t.Simulate(rng, theta)
}

// coreCounts is 1 and GOMAXPROCS (when larger), for the speed-up over one core.
func coreCounts() []int {
	if p := runtime.GOMAXPROCS(0); p > 1 {
		return []int{1, p}
	}
	return []int{1}
}

// BenchmarkNPECoverageTwoMoons10k: expected coverage of an NPE (NSF) on two_moons over 10,000
// test pairs with the rank estimator (1000 posterior draws per pair).
func BenchmarkNPECoverageTwoMoons10k(b *testing.B) {
	npe := sbi.NewNPE(task.TwoMoons().Prior(), sbi.NPEConfig{Flow: "nsf"})
	theta, x := twoMoonsPairs(b, npe)
	for _, w := range coreCounts() {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			for b.Loop() {
				if _, err := diag.RankCoverage(npe, theta, x, diag.RankConfig{Seed: 1, Workers: w}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNRECoverageTwoMoons10k: expected coverage of an NRE on two_moons over 10,000 test
// pairs with the grid estimator (90×90 grid over the prior box, the papers' protocol).
func BenchmarkNRECoverageTwoMoons10k(b *testing.B) {
	prior := task.TwoMoons().Prior()
	nre := sbi.NewNRE(prior, sbi.NREConfig{})
	theta, x := twoMoonsPairs(b, nre)
	opts := diag.GridConfig{Seed: 1}.BoxOf(prior)
	for _, w := range coreCounts() {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			opts.Workers = w
			for b.Loop() {
				if _, err := diag.GridCoverage(nre, theta, x, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
