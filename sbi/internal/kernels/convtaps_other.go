//go:build !amd64 || noasm

package kernels

// ConvTaps is ConvTapsGo.
func ConvTaps(rows, cols, k, n int, a []float64, ra, sa int, off []int, w []float64, ldw int, d, c []float64, ldc int) {
	ConvTapsGo(rows, cols, k, n, a, ra, sa, off, w, ldw, d, c, ldc)
}
