package diag_test

import (
	"fmt"

	"github.com/gosbi/gosbi/sbi/diag"
)

// Two kernel combinations of a panel on the same 20 datasets of the miscalibrated MMGM
// (δ = 0.8·1 in d = 2), at n = 32 and 64: the counts of rejections at level 0.05.
func ExampleRejectionCounts() {
	tests := []diag.KernelTestSpec{
		{Name: "exp. Fisher + Gaussian", Config: diag.KernelTestConfig{Dist: diag.DistKernelConfig{Exact: true}, Bootstrap: 100}},
		{Name: "exp. MMD + IMQ", Config: diag.KernelTestConfig{Target: diag.IMQTarget, Dist: diag.DistKernelConfig{Kind: diag.MMDKernel, Exact: true}, Bootstrap: 100}},
	}
	counts, err := diag.RejectionCounts(1, diag.SyntheticConfig{Model: diag.MeanGaussian, Dim: 2, Delta: 0.8}, tests, []int{32, 64}, 20)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, t := range tests {
		fmt.Println(t.Name, counts[i][1] >= 18)
	}
	// Output:
	// exp. Fisher + Gaussian true
	// exp. MMD + IMQ true
}

// A 95 % interval for the mean of independent replicates, e.g. one statistic per seed.
func ExampleMeanInterval() {
	mean, se, lo, hi, err := diag.MeanInterval([]float64{0.30, 0.10, 0.25, 0.15, 0.20}, 0.95)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.2f ± %.3f, [%.3f, %.3f]\n", mean, se, lo, hi)
	// Output: 0.20 ± 0.035, [0.102, 0.298]
}
