//go:build amd64 && !noasm

package kernels

//go:noescape
func maxPairsAVX512(y []float64, arg []int, x []float64, c, rows, offset int, tail uint64)

// MaxPairs is MaxPairsGo, eight channels at a time where the CPU has AVX-512 (the same
// values and indices).
func MaxPairs(y []float64, arg []int, x []float64, c, rows, offset int) {
	if !AVX512 || rows <= 0 || c <= 0 {
		MaxPairsGo(y, arg, x, c, rows, offset)
		return
	}
	_, _, _ = x[2*rows*c-1], y[rows*c-1], arg[rows*c-1] // the last values touched, in bounds
	maxPairsAVX512(y, arg, x, c, rows, offset, 1<<(c%8)-1)
}

//go:noescape
func copyRunsAVX512(dst, src []float64, n, dstStride, srcStride int, mask uint64)

// CopyRuns is CopyRunsGo, one masked move per run of at most eight values where the CPU has
// AVX-512 (a call of memmove per run of a few values costs more than the copy).
func CopyRuns(dst, src []float64, n, span, dstStride, srcStride int) {
	if !AVX512 || span > 8 || n <= 0 || span <= 0 {
		CopyRunsGo(dst, src, n, span, dstStride, srcStride)
		return
	}
	_, _ = dst[(n-1)*dstStride+span-1], src[(n-1)*srcStride+span-1] // the last values touched, in bounds
	copyRunsAVX512(dst, src, n, dstStride, srcStride, 1<<span-1)
}
