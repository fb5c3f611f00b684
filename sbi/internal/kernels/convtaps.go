package kernels

import "math"

// ConvTapsMax is the most taps (the depth k) ConvTaps runs in assembly: the AVX-512 kernel
// holds the whole k×16 block of weights in 2k registers, beside eight accumulators.
const ConvTapsMax = 12

// ConvTapsGo is the reference loop of the direct convolution of few taps, ConvTaps: for the
// rows×cols outputs (i, j) and the columns o < n (n ≤ 16),
//
//	C[(i·cols + j)·ldc + o] = D[o] + Σ_{l<k} A(i, j, l)·W[l·ldw + o],   A(i, j, l) = a[i·ra + j·sa + off[l]],
//
// the sum started at 0 and accumulated in order of l with fused multiply-adds, then added to
// D (a bias row, or zeros), as the product's micro-tile does (TileGo with a bias row). It is
// a convolution read straight from its padded input: off holds the offsets of a window's
// taps, sa is the step between windows along an output row and ra between output rows, so
// that no patch matrix is copied (im2col) and a depth of a few taps costs no more per output
// than its multiply-adds.
func ConvTapsGo(rows, cols, k, n int, a []float64, ra, sa int, off []int, w []float64, ldw int, d, c []float64, ldc int) {
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			base, y := i*ra+j*sa, c[(i*cols+j)*ldc:]
			for o := 0; o < n; o++ {
				s := 0.0
				for l := 0; l < k; l++ {
					s = math.FMA(a[base+off[l]], w[l*ldw+o], s)
				}
				y[o] = s + d[o]
			}
		}
	}
}
