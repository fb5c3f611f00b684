//go:build !amd64 || noasm

package nn

// hasFloat32Kernel is false: this build has no float32 micro-kernel.
const hasFloat32Kernel = false

// tiles32 is the portable float32 micro-kernel (see made32.go).
func tiles32(blocks, k int, a []float32, lda int, b, c []float32, ldc int, bias []float32, floor float32) {
	tiles32Go(blocks, k, a, lda, b, c, ldc, bias, floor)
}

// tiles32to64 is the portable float32 micro-kernel storing float64.
func tiles32to64(blocks, k int, a []float32, lda int, b []float32, c []float64, ldc int, bias []float32, floor float32, count int) {
	tiles32to64Go(blocks, k, a, lda, b, c, ldc, bias, floor, count)
}
