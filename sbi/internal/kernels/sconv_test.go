package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTiles32Strided compares the strided float32 micro-kernels in use (6×32 and 12×16) with
// their reference loops: one to four tiles, depths 0 to 70, A row-major, transposed and with all rows one
// (row stride 0), rows of B packed (ldb 32) and overlapping (ldb 3), with and without a fused ReLU, storing over the bias or adding to C, with a NaN input
// kept, and only the columns of the mask read and written.
func TestTiles32Strided(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	for _, narrow := range []bool{false, true} { // 6×32 tiles, or 12×16 (blocks/2 of them)
		for _, blocks := range []int{2, 4} {
			for _, k := range []int{0, 1, 5, 32, 70} {
				for _, ldb := range []int{Panel32, 3} {
					for _, layout := range []string{"rows", "transposed", "one row"} {
						for _, floor := range []float32{0, float32(math.Inf(-1))} {
							for _, acc := range []bool{false, true} {
								for _, count := range []int{1, 16, 23, 32} {
									rows, lda, ldc := blocks*TileRows32, k+3, Panel32+5
									ra, ka := lda, 1
									switch layout {
									case "transposed":
										ra, ka = 1, rows+2
									case "one row":
										ra = 0
									}
									a := make([]float32, rows*lda+k*(rows+2))
									b := make([]float32, max(k-1, 0)*ldb+Panel32)
									bias := make([]float32, Panel32)
									c0 := make([]float32, rows*ldc)
									for _, v := range [][]float32{a, b, bias, c0} {
										for i := range v {
											v[i] = float32(rng.NormFloat64())
										}
									}
									if k > 0 {
										a[2*ra] = float32(math.NaN())
									}
									got, want := append([]float32(nil), c0...), append([]float32(nil), c0...)
									cols := ColsMask(count)
									written := count
									if narrow { // blocks/2 tiles of 12×16 cover the same rows; columns from 16 on are left
										Tiles16Strided(blocks/2, k, a, ra, ka, b, ldb, got, ldc, bias, floor, cols, acc)
										Tiles16StridedGo(blocks/2, k, a, ra, ka, b, ldb, want, ldc, bias, floor, cols, acc)
										written = min(count, 16)
									} else {
										Tiles32Strided(blocks, k, a, ra, ka, b, ldb, got, ldc, bias, floor, cols, acc)
										Tiles32StridedGo(blocks, k, a, ra, ka, b, ldb, want, ldc, bias, floor, cols, acc)
									}
									tol := func(w float64) float64 { return float64(k+3) * 0x1p-23 * (1 + math.Abs(w)) }
									for i := range want {
										gi, wi := float64(got[i]), float64(want[i])
										if i%ldc >= written && gi != float64(c0[i]) {
											t.Fatalf("narrow=%v blocks=%d k=%d ldb=%d %s acc=%v count=%d: element (%d, %d) outside the mask written", narrow, blocks, k, ldb, layout, acc, count, i/ldc, i%ldc)
										}
										if math.IsNaN(wi) != math.IsNaN(gi) || math.Abs(gi-wi) > tol(wi) {
											t.Fatalf("narrow=%v blocks=%d k=%d ldb=%d %s floor=%v acc=%v count=%d: element (%d, %d) is %v, want %v", narrow, blocks, k, ldb, layout, floor, acc, count, i/ldc, i%ldc, gi, wi)
										}
									}
								}
							}
						}
					}
				}
			}
		}
	}
}
