//go:build amd64 && !noasm

package kernels

//go:noescape
func sgemm6x32(blocks, k int, a *float32, lda int, b, c *float32, ldc int, bias *float32, floor float32)

//go:noescape
func sgemm6x32to64(blocks, k int, a *float32, lda int, b *float32, c *float64, ldc int, bias *float32, floor float32, cols uint32)

// Float32 reports whether the float32 micro-kernel (sgemm6x32, AVX-512) runs here.
var Float32 = AVX512

// Tiles32 sets blocks tiles of 6×32 of c (row stride ldc) to max(bias + a·b, floor) for the
// 6·blocks×k rows of a (row stride lda) and the packed k×32 panel b, on the assembly kernel
// where it runs.
func Tiles32(blocks, k int, a []float32, lda int, b, c []float32, ldc int, bias []float32, floor float32) {
	if !Float32 {
		Tiles32Go(blocks, k, a, lda, b, c, ldc, bias, floor)
		return
	}
	if blocks <= 0 {
		return
	}
	last := blocks*TileRows32 - 1 // the bounds the kernel relies on
	_, _, _ = a[last*lda+max(k, 1)-1], b[max(k, 1)*Panel32-1], c[last*ldc+Panel32-1]
	_ = bias[Panel32-1]
	sgemm6x32(blocks, k, &a[0], lda, &b[0], &c[0], ldc, &bias[0], floor)
}

// Tiles32to64 is Tiles32 storing the first count columns of each tile as float64.
func Tiles32to64(blocks, k int, a []float32, lda int, b []float32, c []float64, ldc int, bias []float32, floor float32, count int) {
	if !Float32 {
		Tiles32to64Go(blocks, k, a, lda, b, c, ldc, bias, floor, count)
		return
	}
	if blocks <= 0 || count <= 0 {
		return
	}
	last := blocks*TileRows32 - 1
	_, _, _ = a[last*lda+max(k, 1)-1], b[max(k, 1)*Panel32-1], c[last*ldc+count-1]
	_ = bias[Panel32-1]
	sgemm6x32to64(blocks, k, &a[0], lda, &b[0], &c[0], ldc, &bias[0], floor, uint32(1)<<count-1)
}
