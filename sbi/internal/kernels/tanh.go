package kernels

import "math"

// TanhGo sets dst[i] = tanh(src[i]) (dst and src may be the same slice):
//
//	tanh x = sign(x)·(1 − t)/(1 + t),  t = e^−2·min(|x|, 22),  for |x| ≥ 0.625,
//
// with t from ExpOne (tanh 22 rounds to 1), and below 0.625, where 1 − t would cancel,
// x + x·z·P(z)/Q(z) with z = x², the rational approximation math.Tanh uses there (Cephes'
// coefficients). Both agree with math.Tanh to a few ulps. Every operation is rounded on its
// own (the conversions forbid fused multiply-adds), as tanhAVX2 computes it.
func TanhGo(dst, src []float64) {
	for i, x := range src {
		dst[i] = tanhOne(x)
	}
}

func tanhOne(x float64) float64 {
	a := math.Abs(x)
	if a < 0.625 {
		return tanhSmall(x)
	}
	t := ExpOne(-2 * min(a, 22)) // NaN stays NaN
	y := (1 - t) / (1 + t)
	if x < 0 {
		y = -y
	}
	return y
}

// tanhSmall is tanh(x) for |x| < 0.625: x + x·z·P(z)/Q(z), z = x².
func tanhSmall(x float64) float64 {
	const (
		p0 = -9.64399179425052238628e-1
		p1 = -9.92877231001918586564e1
		p2 = -1.61468768441708447952e3
		q0 = 1.12811678491632931402e2
		q1 = 2.23548839060100448583e3
		q2 = 4.84406305325125486048e3
	)
	z := x * x
	p := float64(float64(float64(p0*z)+p1)*z) + p2
	q := float64(float64(float64(float64(z+q0)*z)+q1)*z) + q2
	return x + float64(x*float64(float64(z*p)/q))
}
