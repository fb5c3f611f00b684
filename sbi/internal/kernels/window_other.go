//go:build !amd64 || noasm

package kernels

// MaxPairs is MaxPairsGo.
func MaxPairs(y []float64, arg []int, x []float64, c, rows, offset int) {
	MaxPairsGo(y, arg, x, c, rows, offset)
}

// CopyRuns is CopyRunsGo.
func CopyRuns(dst, src []float64, n, span, dstStride, srcStride int) {
	CopyRunsGo(dst, src, n, span, dstStride, srcStride)
}
