//go:build !amd64 || noasm

package nn

// fastGemm is not available in this build: every product goes through blas64.
func fastGemm(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) bool {
	return false
}

func fastGemmBias(m, n, k int, a []float64, lda int, b []float64, ldb int, bias, c []float64, ldc int, relu bool) bool {
	return false
}
