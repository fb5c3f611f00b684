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

// gemmBias computes C = A·B + 1·biasᵀ: every row of the m×n result is the bias row plus the
// product (the affine layer's y = xW + b for a batch of rows).
func gemmBias(m, n, k int, a []float64, lda int, b []float64, ldb int, bias, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if k > 0 && fastGemmBias(m, n, k, a, lda, b, ldb, bias, c, ldc, false) {
		return
	}
	if ldc == n {
		fillRows(c[:m*n], bias[:n])
	} else {
		for i := 0; i < m; i++ {
			copy(c[i*ldc:i*ldc+n], bias[:n])
		}
	}
	gemm(false, false, m, n, k, 1, a, lda, b, ldb, 1, c, ldc)
}

// gemmBiasAct is gemmBias with ldc = n followed by the activation fn on C; the micro-kernel
// applies it as it stores C where it can (ReLU, on the AVX-512 kernel), saving a pass.
func gemmBiasAct(m, n, k int, a []float64, lda int, b []float64, ldb int, bias, c []float64, fn int) {
	if fn == fnReLU && m > 0 && n > 0 && k > 0 && fastGemmBias(m, n, k, a, lda, b, ldb, bias, c, n, true) {
		return
	}
	gemmBias(m, n, k, a, lda, b, ldb, bias, c, n)
	if fn != fnIdentity {
		applyInPlace(fn, c[:m*n])
	}
}

// Backend names the BLAS implementation in use: "gonum" (pure Go) or "openblas".
func Backend() string { return backend }
