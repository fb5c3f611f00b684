// Command kccsddim measures how the power of the exact KCCSD (exponentiated Fisher kernel,
// Gaussian target kernel) on the KCCSD paper's mean-Gaussian model depends on the dimension d,
// which the paper does not state: the evidence behind notebooks/kccsd's choice of d = 5.
//
// For each setting it draws -reps datasets with diag.SyntheticData (MGM, δ = 0.1, the mean
// shifted on every coordinate or on the first only) and prints the rejection rate at level
// 0.05 with its binomial standard error, as a Markdown table:
//
//	nice -n 5 go run ./tools/kccsddim -reps 200 > notebooks/results/kccsd-dimension.md
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"time"

	"github.com/gosbi/gosbi/sbi/diag"
)

// setting is one row of the table.
type setting struct {
	n, dim     int
	shiftFirst bool
}

func main() {
	reps := flag.Int("reps", 40, "datasets per setting")
	seed := flag.Uint64("seed", 1, "random seed (the notebook draws with seeds of its own)")
	flag.Parse()
	if *reps < 1 {
		log.Fatalf("kccsddim: -reps %d, want at least 1", *reps)
	}
	settings := []setting{
		{256, 2, false}, {256, 5, false}, // δ·1: the paper's Fig. F.5 gives 0.75 at n = 256
		{512, 2, true}, {512, 5, true}, // δ·e₁: Fig. 2
	}
	start := time.Now()
	fmt.Printf("# Exact KCCSD power on the MGM against the dimension\n\n")
	fmt.Printf("`go run ./tools/kccsddim -reps %d -seed %d`: rejection rate at level 0.05 of diag.KCCSDTest with Dist.Exact (exponentiated Fisher kernel, Gaussian target kernel) over %d datasets of diag.SyntheticData (MeanGaussian, δ = 0.1) per row, ± the binomial standard error.\n\n", *reps, *seed, *reps)
	fmt.Println("| mean shift | n | d | rejection rate |")
	fmt.Println("| --- | --- | --- | --- |")
	for i, s := range settings {
		rate, err := power(rand.New(rand.NewPCG(*seed, uint64(i))), s, *reps)
		if err != nil {
			log.Fatalf("kccsddim: %v", err)
		}
		shift := "δ·1 (every coordinate)"
		if s.shiftFirst {
			shift = "δ·e₁ (first coordinate)"
		}
		fmt.Printf("| %s | %d | %d | %.2f ± %.2f |\n", shift, s.n, s.dim, rate, math.Sqrt(rate*(1-rate)/float64(*reps)))
	}
	fmt.Printf("\nRun time %s.\n", time.Since(start).Round(time.Second))
}

// power returns the fraction of reps datasets of setting s on which the test rejects.
func power(rng *rand.Rand, s setting, reps int) (float64, error) {
	cfg := diag.SyntheticConfig{Model: diag.MeanGaussian, N: s.n, Dim: s.dim, Delta: 0.1, ShiftFirst: s.shiftFirst}
	test := diag.KernelTestConfig{Dist: diag.DistKernelConfig{Exact: true}}
	rejected := 0
	for r := 0; r < reps; r++ {
		preds, y, err := diag.SyntheticData(rng, cfg)
		if err != nil {
			return 0, err
		}
		res, err := diag.KCCSDTest(rng, preds, y, test)
		if err != nil {
			return 0, fmt.Errorf("n = %d, d = %d: %w", s.n, s.dim, err)
		}
		if res.Reject {
			rejected++
		}
	}
	return float64(rejected) / float64(reps), nil
}
