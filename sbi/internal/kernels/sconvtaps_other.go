//go:build !amd64 || noasm

package kernels

// ConvTaps32 is ConvTaps32Go.
func ConvTaps32(rows, cols, k, n int, a []float32, ra, sa int, off []int, w []float32, ldw int, d, c []float32, ldc int) {
	ConvTaps32Go(rows, cols, k, n, a, ra, sa, off, w, ldw, d, c, ldc)
}

// ConvGradW32 is ConvGradW32Go.
func ConvGradW32(rows, cols, k, n int, a []float32, ra, sa int, off []int, dy []float32, lddy int, s []float32) {
	ConvGradW32Go(rows, cols, k, n, a, ra, sa, off, dy, lddy, s)
}
