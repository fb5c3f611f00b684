package kernels

import "math"

// ConvTaps32Max is the most taps (the depth k) ConvTaps32 runs in assembly: the AVX-512
// kernel holds the whole k×16 block of float32 weights in k registers, beside eight
// accumulators.
const ConvTaps32Max = 24

// ConvTaps32Go is the reference loop of ConvTaps32, the direct float32 convolution of few
// taps: ConvTapsGo in float32, for the rows×cols outputs (i, j) and the columns o < n
// (n ≤ 16),
//
//	C[(i·cols + j)·ldc + o] = D[o] + Σ_{l<k} A(i, j, l)·W[l·ldw + o],   A(i, j, l) = a[i·ra + j·sa + off[l]],
//
// the sum started at D[o] (a bias row, or zeros) and accumulated in order of l with float32
// fused multiply-adds (one rounding each, Fma32): a bias costs no addition of its own.
func ConvTaps32Go(rows, cols, k, n int, a []float32, ra, sa int, off []int, w []float32, ldw int, d, c []float32, ldc int) {
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			base, y := i*ra+j*sa, c[(i*cols+j)*ldc:]
			for o := 0; o < n; o++ {
				s := d[o]
				for l := 0; l < k; l++ {
					s = Fma32(a[base+off[l]], w[l*ldw+o], s)
				}
				y[o] = s
			}
		}
	}
}

// Fma32 returns x·y + z rounded once to float32, as the float32 fused multiply-add of the
// assembly kernels: the product of two float32 values is exact in float64, the sum is
// rounded to float64 to odd (its last bit set where the rounding was inexact), which then
// rounds to float32 as the exact sum does (53 ≥ 2·24 + 2 bits; Boldo & Melquiond 2008).
func Fma32(x, y, z float32) float32 {
	p, zz := float64(x)*float64(y), float64(z)
	s := p + zz
	if math.IsInf(s, 0) || math.IsNaN(s) {
		return float32(s)
	}
	b := s - p // the rounding error of s, exactly (Knuth's TwoSum)
	e := (p - (s - b)) + (zz - b)
	if e != 0 && math.Float64bits(s)&1 == 0 {
		s = math.Nextafter(s, math.Copysign(math.Inf(1), e))
	}
	return float32(s)
}

// ConvGradW32Go is the reference loop of ConvGradW32, the weight gradient of the direct
// float32 convolution: with A(i, j, l) the windows of ConvTaps32Go, it adds, output by output
// in row-major order (i·cols + j), the products of each tap l < k and column o < n (n ≤ 16)
//
//	S[l·16 + o] = Fma32(A(i, j, l), dY[(i·cols + j)·lddy + o], S[l·16 + o])
//
// to the sums S (k rows of 16), one float32 fused multiply-add chain per tap and column.
func ConvGradW32Go(rows, cols, k, n int, a []float32, ra, sa int, off []int, dy []float32, lddy int, s []float32) {
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			base, d := i*ra+j*sa, dy[(i*cols+j)*lddy:]
			for l := 0; l < k; l++ {
				v, sl := a[base+off[l]], s[l*16:l*16+n]
				for o := range sl {
					sl[o] = Fma32(v, d[o], sl[o])
				}
			}
		}
	}
}
