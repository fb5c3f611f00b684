//go:build !amd64 || noasm

package kernels

// ConvTaps is ConvTapsGo.
func ConvTaps(rows, cols, k, n int, a []float64, ra, sa int, off []int, w []float64, ldw int, d, c []float64, ldc int) {
	ConvTapsGo(rows, cols, k, n, a, ra, sa, off, w, ldw, d, c, ldc)
}

// ConvGradW is ConvGradWGo.
func ConvGradW(rows, cols, k, n int, a []float64, ra, sa int, off []int, dy []float64, lddy int, s, c []float64, ldc, left int) int {
	return ConvGradWGo(rows, cols, k, n, a, ra, sa, off, dy, lddy, s, c, ldc, left)
}
