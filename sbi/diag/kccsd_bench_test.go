package diag

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkKCCSD compares the complete U-statistic test (O(n²) pairs and bootstrap) with the
// superdiagonal (R = 10) and linear-time disjoint-pairs tests as n grows, on MGM data (d = 2) with the approximate Fisher
// kernel (10 base points) and 200 bootstrap draws. Run: go test -run '^$' -bench KCCSD ./sbi/diag
func BenchmarkKCCSD(b *testing.B) {
	for _, design := range []Design{Complete, Superdiagonals, DisjointPairs} {
		for _, n := range []int{256, 1024, 4096} {
			name := map[Design]string{Complete: "U", Superdiagonals: "R10", DisjointPairs: "linear"}[design]
			b.Run(fmt.Sprintf("%s/n=%d", name, n), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 2))
				preds, y := meanGaussianModel(rng, n, 2, 0)
				cfg := KernelTestConfig{Design: design, Bootstrap: 200}
				b.ResetTimer()
				for b.Loop() {
					if _, err := KCCSDTest(rng, preds, y, cfg); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkKCCSDStatistic times the bare statistic with gradients (what a training penalty
// evaluates per step) for a batch of 128 with GFD features of 10 base points.
func BenchmarkKCCSDStatistic(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, d, m = 128, 2, 10
	y, sy, f := randMat(rng, n, d), randMat(rng, n, d), randMat(rng, n, m*d)
	gSy, gF := randMat(rng, n, d), randMat(rng, n, m*d)
	for _, design := range []Design{Complete, DisjointPairs} {
		b.Run(design.String(), func(b *testing.B) {
			for b.Loop() {
				KCCSDFeatures(y, sy, f, 1, GaussianTarget, 1, design, gSy, gF)
			}
		})
	}
}
