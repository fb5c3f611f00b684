//go:build !amd64 || noasm

package kernels

// Gemm reports false: without assembly, products go through a BLAS (see package nn's
// matmul.go).
func Gemm(tA, tB bool, m, n, k int, a []float64, lda int, b []float64, ldb int, bias, c []float64, ldc int, relu bool) bool {
	return false
}

// GemmWidth returns 0: Gemm does not run in this build.
func GemmWidth() int { return 0 }

// GemmWidths returns {0}.
func GemmWidths() []int { return []int{0} }

// SetGemmWidth changes nothing.
func SetGemmWidth(int) (restore func()) { return func() {} }
