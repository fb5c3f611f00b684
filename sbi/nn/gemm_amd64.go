//go:build amd64 && !noasm

package nn

import "github.com/gosbi/gosbi/sbi/internal/kernels"

// fastGemm computes C = op(A)·op(B) + beta·C with the packed kernel (kernels.Gemm) and reports
// true, or reports false when the kernel is not available or the product is not its (alpha
// ≠ 1 is never asked for here; see ownKernelFor).
func fastGemm(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) bool {
	if !kernels.AVX2 || alpha != 1 || !ownKernelFor(tA, tB, m) {
		return false
	}
	scaleC(m, n, beta, c, ldc)
	return kernels.Gemm(tA, tB, m, n, k, a, lda, b, ldb, nil, c, ldc, false)
}

// fastGemmBias computes C = A·B + 1·biasᵀ (every row of C gets the bias row), followed by
// ReLU when relu is set, with the packed kernel and reports true, or reports false when the
// kernel is not available (or relu is asked of the AVX2 kernel, which does not fuse it). The
// bias and the ReLU are applied by the micro-kernel as it stores each tile, so C is written
// once and never read.
func fastGemmBias(m, n, k int, a []float64, lda int, b []float64, ldb int, bias, c []float64, ldc int, relu bool) bool {
	if !ownKernelFor(false, false, m) {
		return false
	}
	return kernels.Gemm(false, false, m, n, k, a, lda, b, ldb, bias, c, ldc, relu)
}

func scaleC(m, n int, beta float64, c []float64, ldc int) {
	if beta == 1 {
		return
	}
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}
