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

// ConvGradWGo is the reference loop of the weight gradient of the direct convolution,
// ConvGradW: with A(i, j, l) the windows of ConvTapsGo, it adds, output by output in
// row-major order (i·cols + j), the products of each tap l < k and column o < n (n ≤ 16)
//
//	S[l·16 + o] = fma(A(i, j, l), dY[(i·cols + j)·lddy + o], S[l·16 + o])
//
// to the partial sums S (k rows of 16), and after each output that ends a depth block of the
// product (left, the outputs the block has left, reaches 0) it adds them to the gradient,
// C[l·ldc + o] = S[l·16 + o] + C[l·ldc + o], clears S and starts a block of KC outputs. It
// returns what the block in progress has left. Called over the rows of a patch matrix from a
// cleared C and S and left = KC, followed by ConvGradWFlush, it gives the bits of the
// product Patchesᵀ·dY (Gemm), whose micro-tiles start each depth block's sums at 0, add the
// KC products of the block with fused multiply-adds, and add the sum to C; the windows
// are read from the padded input, so no patch matrix is copied (im2col), and the partial
// sums are carried from one call to the next across examples.
func ConvGradWGo(rows, cols, k, n int, a []float64, ra, sa int, off []int, dy []float64, lddy int, s, c []float64, ldc, left int) int {
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			base, d := i*ra+j*sa, dy[(i*cols+j)*lddy:]
			for l := 0; l < k; l++ {
				v, sl := a[base+off[l]], s[l*16:l*16+n]
				for o := range sl {
					sl[o] = math.FMA(v, d[o], sl[o])
				}
			}
			if left--; left == 0 {
				ConvGradWFlush(k, n, s, c, ldc)
				left = KC
			}
		}
	}
	return left
}

// ConvGradWFlush adds the partial sums S of ConvGradW to the gradient C, C[l·ldc + o] =
// S[l·16 + o] + C[l·ldc + o] for l < k, o < n, and clears them: the end of the last depth
// block.
func ConvGradWFlush(k, n int, s, c []float64, ldc int) {
	for l := 0; l < k; l++ {
		sl, cl := s[l*16:l*16+n], c[l*ldc:l*ldc+n]
		for o, v := range sl {
			cl[o] = v + cl[o]
		}
		clear(sl)
	}
}
