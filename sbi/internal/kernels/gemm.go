package kernels

import "math"

// MR is the number of rows of a matrix-product micro-tile.
const MR = 6

// KC is the depth of one block of the packed matrix product: a micro-tile sums at most KC
// products before it adds its sum to C, so that a product of depth k adds ⌈k/KC⌉ partial
// sums to C, in order (ConvGradW repeats them).
const KC = 256

// TileGo is the reference loop of the matrix-product micro-kernels kernel6x8 (AVX2, nr = 8,
// all columns, no floor) and kernel6x16 (AVX-512, nr = 16) that Gemm runs: for r < 6 and the
// columns j < nr whose bit is set in cols,
//
//	C[r, j] = max(floor, D[r, j] + Σ_{l<k} A[r, l]·B[l, j]),
//
// with A[r, l] = a[r·rs + l·cs] (a packed panel of A has rs = 1, cs = 6; six rows of a
// row-major A read in place have rs = lda, cs = 1), B[l, j] = b[l·ldb + j] (a packed k×nr
// panel has ldb = nr; kernel6x8 reads packed panels only),
// C[r, j] = c[r·ldc + j] and D[r, j] = d[r·ldd + j] (D = C accumulates; a bias row, ldd = 0,
// is added to every row without reading C). The sum starts at 0 and adds the products in
// order of l with fused multiply-adds; floor is −Inf (none) or 0 (a fused ReLU), and the
// maximum keeps NaN and −0. The assembly kernels give the same bits. Builds without
// assembly do not run it: their products go through a BLAS (see package nn's matmul.go).
func TileGo(nr, k int, a []float64, rs, cs int, b []float64, ldb int, c []float64, ldc int, d []float64, ldd int, cols int, floor float64) {
	for r := 0; r < MR; r++ {
		for j := 0; j < nr; j++ {
			if cols&(1<<j) == 0 {
				continue
			}
			s := 0.0
			for l := 0; l < k; l++ {
				s = math.FMA(a[r*rs+l*cs], b[l*ldb+j], s)
			}
			s += d[r*ldd+j]
			if floor > s {
				s = floor
			}
			c[r*ldc+j] = s
		}
	}
}
