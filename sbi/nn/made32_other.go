//go:build !amd64 || noasm

package nn

// hasFloat32Kernel is false: this build has no float32 micro-kernel.
const hasFloat32Kernel = false

// tile32 is the portable float32 micro-kernel (see made32.go).
func tile32(k int, a []float32, lda int, b, c []float32, ldc int, bias []float32, floor float32) {
	tile32Go(k, a, lda, b, c, ldc, bias, floor)
}

// tile32to64 is the portable float32 micro-kernel storing float64.
func tile32to64(k int, a []float32, lda int, b []float32, c []float64, ldc int, bias []float32, floor float32, count int) {
	tile32to64Go(k, a, lda, b, c, ldc, bias, floor, count)
}
