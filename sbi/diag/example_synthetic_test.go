package diag_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/gosbi/gosbi/sbi/diag"
)

// The heteroscedastic model of the KCCSD paper (App. F.9) predicts too wide a distribution near
// c = (2/3)·1; the KCCSD with the exact exponentiated Wasserstein kernel detects it, and does
// not reject the calibrated version (δ = 0).
func ExampleSyntheticData() {
	rng := rand.New(rand.NewPCG(1, 1))
	cfg := diag.KernelTestConfig{Dist: diag.DistKernelConfig{Kind: diag.WassersteinKernel, Exact: true}}
	for _, delta := range []float64{0, 1} {
		preds, y := diag.MustSyntheticData(rng, diag.SyntheticConfig{Model: diag.HeteroscedasticGaussian, N: 256, Delta: delta})
		res, err := diag.KCCSDTest(rng, preds, y, cfg)
		if err != nil {
			panic(err)
		}
		fmt.Printf("HGM δ = %g: reject %v\n", delta, res.Reject)
	}
	// Output:
	// HGM δ = 0: reject false
	// HGM δ = 1: reject true
}
