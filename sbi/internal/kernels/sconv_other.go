//go:build !amd64 || noasm

package kernels

// Tiles32Strided is Tiles32StridedGo (see sconv.go).
func Tiles32Strided(blocks, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, bias []float32, floor float32, cols uint32, acc bool) {
	Tiles32StridedGo(blocks, k, a, lda, b, ldb, c, ldc, bias, floor, cols, acc)
}
