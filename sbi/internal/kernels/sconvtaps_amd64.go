//go:build amd64 && !noasm

package kernels

//go:noescape
func convTaps32x16(rows, cols, k int, a *float32, ra, sa int, off *int, w *float32, ldw int, d, c *float32, ldc int, mask uint64)

// ConvTaps32 is ConvTaps32Go, on the AVX-512 kernel where the CPU has it and 1 ≤ k ≤
// ConvTaps32Max, 1 ≤ n ≤ 16 (the same bits). The kernel keeps a tap's 16 weights in one
// register and reads each tap of eight windows once per output column block: no patch
// matrix, no packing and no call per micro-tile.
func ConvTaps32(rows, cols, k, n int, a []float32, ra, sa int, off []int, w []float32, ldw int, d, c []float32, ldc int) {
	if !AVX512 || k < 1 || k > ConvTaps32Max || n < 1 || n > 16 || rows <= 0 || cols <= 0 || ra < 0 || sa < 0 {
		ConvTaps32Go(rows, cols, k, n, a, ra, sa, off, w, ldw, d, c, ldc)
		return
	}
	// the last values touched, in bounds
	hi := maxTapOffset("ConvTaps32", off[:k])
	_, _ = a[(rows-1)*ra+(cols-1)*sa+hi], c[(rows*cols-1)*ldc+n-1]
	_, _ = w[(k-1)*ldw+n-1], d[n-1]
	convTaps32x16(rows, cols, k, &a[0], ra, sa, &off[0], &w[0], ldw, &d[0], &c[0], ldc, 1<<n-1)
}

//go:noescape
func convGradW32x16(rows, cols, k int, a *float32, ra, sa int, off *int, dy *float32, lddy int, s *float32, mask uint64)

// ConvGradW32 is ConvGradW32Go, on the AVX-512 kernel where the CPU has it, 1 ≤ k ≤
// ConvTaps32Max and 1 ≤ n ≤ 16 (the same bits). The kernel keeps a tap's 16 sums in one
// register and reads each tap of a window once, so the weight gradient needs neither a
// patch matrix nor the product's packing.
func ConvGradW32(rows, cols, k, n int, a []float32, ra, sa int, off []int, dy []float32, lddy int, s []float32) {
	if !AVX512 || k < 1 || k > ConvTaps32Max || n < 1 || n > 16 || rows <= 0 || cols <= 0 || ra < 0 || sa < 0 {
		ConvGradW32Go(rows, cols, k, n, a, ra, sa, off, dy, lddy, s)
		return
	}
	hi := maxTapOffset("ConvGradW32", off[:k])
	// the last values touched, in bounds
	_, _ = a[(rows-1)*ra+(cols-1)*sa+hi], dy[(rows*cols-1)*lddy+n-1]
	_ = s[(k-1)*16+n-1]
	convGradW32x16(rows, cols, k, &a[0], ra, sa, &off[0], &dy[0], lddy, &s[0], 1<<n-1)
}
