package nn

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// gemm computes C = alpha·op(A)·op(B) + beta·C for row-major A, B, C through gonum's blas64
// interface, so that the implementation registered with blas64.Use (pure-Go gonum by default,
// OpenBLAS in builds with the openblas tag) does the work. op(A) is m×k, op(B) is k×n.
func gemm(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		if beta != 1 {
			for i := 0; i < m; i++ {
				row := c[i*ldc : i*ldc+n]
				for j := range row {
					row[j] *= beta
				}
			}
		}
		return
	}
	if fastGemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) {
		return
	}
	ta, tb := blas.NoTrans, blas.NoTrans
	if tA {
		ta = blas.Trans
	}
	if tB {
		tb = blas.Trans
	}
	blas64.Implementation().Dgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Backend names the BLAS implementation in use: "gonum" (pure Go) or "openblas".
func Backend() string { return backend }
