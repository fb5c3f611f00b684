package certify_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/gosbi/gosbi/sbi/certify"
	"github.com/gosbi/gosbi/sbi/diag"
)

// Decide judges a coverage result computed elsewhere against a target: here the HPD ranks of
// an exactly calibrated posterior (uniform), on a test set large enough to certify and on one
// too small to decide, whose decision says how many test pairs would.
func ExampleDecide() {
	var t certify.Target // the defaults: DefaultLevels within DefaultTolerance, DefaultAlpha
	fmt.Println(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{4000, 100} {
		ranks := make([]float64, n)
		for i := range ranks {
			ranks[i] = rng.Float64()
		}
		cov, err := diag.CoverageFromRanks(ranks, certify.DefaultLevels())
		if err != nil {
			fmt.Println(err)
			return
		}
		d, err := certify.Decide(cov, t)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%d pairs: %s (power %.2f, needed %d)\n", n, d.Verdict, d.Power, d.Needed)
	}
	fmt.Println("pairs for power 0.8:", t.Needed(0.8))
	// Output:
	// coverage within ±0.05 of each level {0.5, 0.8, 0.9, 0.95}, false-certification rate ≤ 0.05
	// 4000 pairs: certified (power 1.00, needed 0)
	// 100 pairs: inconclusive (power 0.00, needed 950)
	// pairs for power 0.8: 950
}
