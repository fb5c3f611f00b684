//go:build amd64 && !noasm

package kernels

//go:noescape
func convTaps16(rows, cols, k int, a *float64, ra, sa int, off *int, w *float64, ldw int, d, c *float64, ldc int, mask uint64)

// ConvTaps is ConvTapsGo, on the AVX-512 kernel where the CPU has it and 1 ≤ k ≤
// ConvTapsMax, 1 ≤ n ≤ 16 (the same bits). The kernel keeps the k×n weights in registers
// and reads each tap of four windows once per output column block, so it has no packing, no
// tile copies and no call per micro-tile: the overheads that dominate a product of a few
// taps' depth.
func ConvTaps(rows, cols, k, n int, a []float64, ra, sa int, off []int, w []float64, ldw int, d, c []float64, ldc int) {
	if !AVX512 || k < 1 || k > ConvTapsMax || n < 1 || n > 16 || rows <= 0 || cols <= 0 || ra < 0 || sa < 0 {
		ConvTapsGo(rows, cols, k, n, a, ra, sa, off, w, ldw, d, c, ldc)
		return
	}
	// the last values touched, in bounds
	hi := maxTapOffset("ConvTaps", off[:k])
	_, _ = a[(rows-1)*ra+(cols-1)*sa+hi], c[(rows*cols-1)*ldc+n-1]
	_, _ = w[(k-1)*ldw+n-1], d[n-1]
	convTaps16(rows, cols, k, &a[0], ra, sa, &off[0], &w[0], ldw, &d[0], &c[0], ldc, 1<<n-1)
}

// convGradW16 restarts a block at 256 outputs left (fdone in convtaps_amd64.s): this
// constant does not compile unless KC is 256.
const _ = uint(KC-256) + uint(256-KC)

//go:noescape
func convGradW16(rows, cols, k int, a *float64, ra, sa int, off *int, dy *float64, lddy int, s, c *float64, ldc, left int, mask uint64) int

// ConvGradW is ConvGradWGo, on the AVX-512 kernel where the CPU has it, 1 ≤ k ≤ ConvTapsMax,
// 1 ≤ n ≤ 16 and 1 ≤ left ≤ KC (the same bits). The kernel keeps the k×n partial sums in
// registers and reads each tap of a window once, so the weight gradient needs neither the
// patch matrix (im2col) nor the packing of the product.
func ConvGradW(rows, cols, k, n int, a []float64, ra, sa int, off []int, dy []float64, lddy int, s, c []float64, ldc, left int) int {
	if !AVX512 || k < 1 || k > ConvTapsMax || n < 1 || n > 16 || rows <= 0 || cols <= 0 || ra < 0 || sa < 0 || left < 1 || left > KC {
		return ConvGradWGo(rows, cols, k, n, a, ra, sa, off, dy, lddy, s, c, ldc, left)
	}
	hi := maxTapOffset("ConvGradW", off[:k])
	// the last values touched, in bounds
	_, _ = a[(rows-1)*ra+(cols-1)*sa+hi], dy[(rows*cols-1)*lddy+n-1]
	_, _ = s[(k-1)*16+n-1], c[(k-1)*ldc+n-1]
	return convGradW16(rows, cols, k, &a[0], ra, sa, &off[0], &dy[0], lddy, &s[0], &c[0], ldc, left, 1<<n-1)
}

// maxTapOffset returns the largest of the tap offsets off, which the assembly kernels of fn
// read from; it panics on a negative one, which they would read before their input.
func maxTapOffset(fn string, off []int) int {
	hi := 0
	for _, o := range off {
		if o < 0 {
			panic("kernels: " + fn + ": negative tap offset")
		}
		hi = max(hi, o)
	}
	return hi
}
