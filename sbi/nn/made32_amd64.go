//go:build amd64 && !noasm

package nn

//go:noescape
func sgemm6x32(k int, a *float32, lda int, b, c *float32, ldc int, bias *float32, floor float32)

// hasFloat32Kernel reports whether the float32 micro-kernel (sgemm6x32, AVX-512) runs here.
var hasFloat32Kernel = hasAVX512

// tile32 sets the 6×32 tile c (row stride ldc) to max(bias + a·b, floor) for the 6×k block of
// a (row stride lda) and the packed k×32 panel b, on the assembly kernel where it runs.
func tile32(k int, a []float32, lda int, b, c []float32, ldc int, bias []float32, floor float32) {
	if !hasFloat32Kernel {
		tile32Go(k, a, lda, b, c, ldc, bias, floor)
		return
	}
	// the bounds the kernel relies on
	_, _, _ = a[(tileRows32-1)*lda+max(k, 1)-1], b[max(k, 1)*panel32-1], c[(tileRows32-1)*ldc+panel32-1]
	_ = bias[panel32-1]
	sgemm6x32(k, &a[0], lda, &b[0], &c[0], ldc, &bias[0], floor)
}

//go:noescape
func sgemm6x32to64(k int, a *float32, lda int, b *float32, c *float64, ldc int, bias *float32, floor float32, cols uint32)

// tile32to64 is tile32 storing the first count columns of the tile as float64.
func tile32to64(k int, a []float32, lda int, b []float32, c []float64, ldc int, bias []float32, floor float32, count int) {
	if !hasFloat32Kernel {
		tile32to64Go(k, a, lda, b, c, ldc, bias, floor, count)
		return
	}
	if count <= 0 {
		return
	}
	_, _, _ = a[(tileRows32-1)*lda+max(k, 1)-1], b[max(k, 1)*panel32-1], c[(tileRows32-1)*ldc+count-1]
	_ = bias[panel32-1]
	sgemm6x32to64(k, &a[0], lda, &b[0], &c[0], ldc, &bias[0], floor, uint32(1)<<count-1)
}
