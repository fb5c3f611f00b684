package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTiles32 compares the float32 micro-kernels in use with the portable one: one to three
// tiles, depths 0 to 70, ReLU and no floor, NaN inputs kept, and the float64-storing kernel
// writing exactly its first count columns of every row.
func TestTiles32(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, blocks := range []int{1, 3} {
		for _, k := range []int{0, 1, 2, 7, 32, 70} {
			for _, floor := range []float32{0, float32(math.Inf(-1))} {
				rows, lda, ldc := blocks*TileRows32, k+3, Panel32+5
				a := make([]float32, rows*lda)
				b := make([]float32, max(k, 1)*Panel32)
				bias := make([]float32, Panel32)
				for _, v := range [][]float32{a, b, bias} {
					for i := range v {
						v[i] = float32(rng.NormFloat64())
					}
				}
				if k > 0 {
					a[2*lda] = float32(math.NaN())
				}
				got := make([]float32, rows*ldc)
				want := make([]float32, rows*ldc)
				Tiles32(blocks, k, a, lda, b, got, ldc, bias, floor)
				Tiles32Go(blocks, k, a, lda, b, want, ldc, bias, floor)
				tol := func(w float64) float64 { return float64(k+2) * 0x1p-23 * (1 + math.Abs(w)) }
				for i := range want {
					gi, wi := float64(got[i]), float64(want[i])
					if i%ldc >= Panel32 {
						wi = 0 // untouched
					}
					if math.IsNaN(wi) != math.IsNaN(gi) || math.Abs(gi-wi) > tol(wi) {
						t.Fatalf("blocks=%d k=%d floor=%v: element (%d, %d) is %v, want %v", blocks, k, floor, i/ldc, i%ldc, gi, wi)
					}
				}
				for _, count := range []int{1, 23, 32} {
					c64 := make([]float64, rows*ldc)
					for i := range c64 {
						c64[i] = -7
					}
					Tiles32to64(blocks, k, a, lda, b, c64, ldc, bias, floor, count)
					for i, g := range c64 {
						w := float64(want[i])
						if i%ldc >= count {
							w = -7 // untouched
						}
						if math.IsNaN(w) != math.IsNaN(g) || math.Abs(g-w) > tol(w) {
							t.Fatalf("blocks=%d k=%d count=%d: float64 element (%d, %d) is %v, want %v", blocks, k, count, i/ldc, i%ldc, g, w)
						}
					}
				}
			}
		}
	}
}
