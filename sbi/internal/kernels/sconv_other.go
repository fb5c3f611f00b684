//go:build !amd64 || noasm

package kernels

// Tiles32Strided is Tiles32StridedGo (see sconv.go).
func Tiles32Strided(blocks, k int, a []float32, ra, ka int, b []float32, ldb int, c []float32, ldc int, bias []float32, floor float32, cols uint32, acc bool) {
	Tiles32StridedGo(blocks, k, a, ra, ka, b, ldb, c, ldc, bias, floor, cols, acc)
}

// Tiles16Strided is Tiles16StridedGo.
func Tiles16Strided(blocks, k int, a []float32, ra, ka int, b []float32, ldb int, c []float32, ldc int, bias []float32, floor float32, cols uint32, acc bool) {
	Tiles16StridedGo(blocks, k, a, ra, ka, b, ldb, c, ldc, bias, floor, cols, acc)
}
