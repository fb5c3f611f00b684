//go:build !amd64 || noasm

package kernels

// Float32 is false: this build has no float32 micro-kernel.
const Float32 = false

// Tiles32 is Tiles32Go (see sgemm.go).
func Tiles32(blocks, k int, a []float32, lda int, b, c []float32, ldc int, bias []float32, floor float32) {
	Tiles32Go(blocks, k, a, lda, b, c, ldc, bias, floor)
}

// Tiles32to64 is Tiles32to64Go.
func Tiles32to64(blocks, k int, a []float32, lda int, b []float32, c []float64, ldc int, bias []float32, floor float32, count int) {
	Tiles32to64Go(blocks, k, a, lda, b, c, ldc, bias, floor, count)
}
