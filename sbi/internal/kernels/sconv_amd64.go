//go:build amd64 && !noasm

package kernels

import "math/bits"

//go:noescape
func sgemm12x16s(blocks, k int, a *float32, ra, ka int, b *float32, ldb int, c *float32, ldc int, bias *float32, floor float32, cols, acc uint32)

//go:noescape
func sgemm6x32s(blocks, k int, a *float32, ra, ka int, b *float32, ldb int, c *float32, ldc int, bias *float32, floor float32, cols, acc uint32)

// Tiles32Strided sets blocks tiles of 6×32 of c to max(S + a·B, floor) (see
// Tiles32StridedGo: A's elements at strides ra and ka, B's rows at stride ldb, S the bias or,
// with acc, c itself; only the columns of cols), on the assembly kernel where it runs. It
// reads only the columns of cols of B and C.
func Tiles32Strided(blocks, k int, a []float32, ra, ka int, b []float32, ldb int, c []float32, ldc int, bias []float32, floor float32, cols uint32, acc bool) {
	if !Float32 {
		Tiles32StridedGo(blocks, k, a, ra, ka, b, ldb, c, ldc, bias, floor, cols, acc)
		return
	}
	tilesStrided(false, blocks, k, a, ra, ka, b, ldb, c, ldc, bias, floor, cols, acc)
}

// Tiles16Strided is Tiles32Strided on tiles of 12×16 (see Tiles16StridedGo): for products of
// at most 16 columns, whose lanes a 6×32 tile would leave half empty.
func Tiles16Strided(blocks, k int, a []float32, ra, ka int, b []float32, ldb int, c []float32, ldc int, bias []float32, floor float32, cols uint32, acc bool) {
	cols &= 0xffff
	if !Float32 {
		Tiles16StridedGo(blocks, k, a, ra, ka, b, ldb, c, ldc, bias, floor, cols, acc)
		return
	}
	tilesStrided(true, blocks, k, a, ra, ka, b, ldb, c, ldc, bias, floor, cols, acc)
}

// tilesStrided checks the bounds the assembly kernels rely on and calls the 12×16 one
// (narrow) or the 6×32 one.
func tilesStrided(narrow bool, blocks, k int, a []float32, ra, ka int, b []float32, ldb int, c []float32, ldc int, bias []float32, floor float32, cols uint32, acc bool) {
	if blocks <= 0 || cols == 0 {
		return
	}
	rows, width := TileRows32, Panel32
	if narrow {
		rows, width = TileRows16, 16
	}
	last, top := blocks*rows-1, bits.Len32(cols)-1
	_, _ = c[last*ldc+top], bias[width-1]
	if k > 0 {
		_, _ = a[last*ra+(k-1)*ka], b[(k-1)*ldb+top]
	}
	var flag uint32
	if acc {
		flag = 1
	}
	pa, pb := &bias[0], &bias[0] // not read when k is 0
	if k > 0 {
		pa, pb = &a[0], &b[0]
	}
	if narrow {
		sgemm12x16s(blocks, k, pa, ra, ka, pb, ldb, &c[0], ldc, &bias[0], floor, cols, flag)
		return
	}
	sgemm6x32s(blocks, k, pa, ra, ka, pb, ldb, &c[0], ldc, &bias[0], floor, cols, flag)
}
