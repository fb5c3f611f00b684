package kernels

import "math"

// Tanh32Go sets dst[i] = tanh(src[i]) in float32 (dst and src may be the same slice), the
// hidden activation of MADEs evaluated in float32:
//
//	tanh x = sign(x)·(1 − 2/(e^2a + 1)),  a = min(|x|, 9),  for |x| ≥ 0.625,
//
// (tanh 9 rounds to 1 in float32), and below 0.625, where 1 − 2/(e^2a + 1) would cancel,
// x + x·z·P(z) with z = x² and P of degree 4 (Cephes' tanhf coefficients). e^v is exp32One.
// Both are within a few float32 ulps of tanh. Every operation is rounded on its own (the
// conversions forbid fused multiply-adds), as tanh32AVX512 computes it.
func Tanh32Go(dst, src []float32) {
	for i, x := range src {
		dst[i] = tanh32One(x)
	}
}

func tanh32One(x float32) float32 {
	a := math.Float32frombits(math.Float32bits(x) &^ (1 << 31))
	if a < 0.625 {
		z := x * x
		p := float32(float32(-5.70498872745e-3*z) + 2.06390887954e-2)
		p = float32(float32(p*z) - 5.37397155531e-2)
		p = float32(float32(p*z) + 1.33314422036e-1)
		p = float32(float32(p*z) - 3.33332819422e-1)
		return x + float32(float32(float32(p*z)*x))
	}
	e := exp32One(2 * min(a, 9)) // NaN stays NaN
	y := 1 - float32(2/float32(e+1))
	if x < 0 {
		y = -y
	}
	return y
}

// exp32One is e^v in float32 for v in [0, 18] (the range Tanh32 asks for): with
// v = n·ln 2 + r, n = round(v·log2 e) (to even), r = (v − n·c1) − n·c2 where c1 + c2 = ln 2
// (c1 exact in nine bits, so n·c1 is exact), e^r ≈ 1 + r + r²·Q(r), Q of degree 5 (Cephes'
// expf coefficients), scaled by 2^n built in the exponent bits. NaN gives NaN.
func exp32One(v float32) float32 {
	const (
		log2e = 1.44269504088896341
		c1    = 0.693359375
		c2    = -2.12194440e-4
	)
	n := float32(math.RoundToEven(float64(float32(v * log2e))))
	r := float32(v - float32(n*c1))
	r = float32(r - float32(n*c2))
	q := float32(float32(1.9875691500e-4*r) + 1.3981999507e-3)
	q = float32(float32(q*r) + 8.3334519073e-3)
	q = float32(float32(q*r) + 4.1665795894e-2)
	q = float32(float32(q*r) + 1.6666665459e-1)
	q = float32(float32(q*r) + 5.0000001201e-1)
	y := float32(float32(float32(q*float32(r*r))+r) + 1)
	return y * math.Float32frombits(uint32(int32(n)+127)<<23)
}
