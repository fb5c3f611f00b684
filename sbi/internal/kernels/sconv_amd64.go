//go:build amd64 && !noasm

package kernels

import "math/bits"

//go:noescape
func sgemm6x32s(blocks, k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, bias *float32, floor float32, cols, acc uint32)

// Tiles32Strided sets blocks tiles of 6×32 of c to max(S + a·B, floor) (see
// Tiles32StridedGo: B's rows at stride ldb, S the bias or, with acc, c itself; only the
// columns of cols), on the assembly kernel where it runs. The kernel reads all 32 values of
// every row of B it uses, whatever cols.
func Tiles32Strided(blocks, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, bias []float32, floor float32, cols uint32, acc bool) {
	if !Float32 {
		Tiles32StridedGo(blocks, k, a, lda, b, ldb, c, ldc, bias, floor, cols, acc)
		return
	}
	if blocks <= 0 || cols == 0 {
		return
	}
	last, top := blocks*TileRows32-1, bits.Len32(cols)-1 // the bounds the kernel relies on
	_, _ = c[last*ldc+top], bias[Panel32-1]
	if k > 0 {
		_, _ = a[last*lda+k-1], b[(k-1)*ldb+Panel32-1]
	}
	var flag uint32
	if acc {
		flag = 1
	}
	pa, pb := &bias[0], &bias[0] // not read when k is 0
	if k > 0 {
		pa, pb = &a[0], &b[0]
	}
	sgemm6x32s(blocks, k, pa, lda, pb, ldb, &c[0], ldc, &bias[0], floor, cols, flag)
}
