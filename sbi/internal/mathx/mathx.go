// Package mathx holds the elementary functions of package math that the library needs correct
// where the standard library's are not. On amd64, math.Log (and through it math.Lgamma, and
// math.Pow with a fractional exponent) is wrong for subnormal arguments, 0 < x < 2⁻¹⁰²²
// (golang/go#56600): math.Log(5e−324) is −709.09 instead of −744.44, math.Log(1e−310) is
// −709.09 instead of −713.80. A log-density that takes the logarithm of a value that can
// underflow to that range (a coordinate near the edge of a support, a parameter, a width), or
// raises such a value to a fractional power, calls the functions here instead.
package mathx

import "math"

// minNormal is the smallest positive normal float64, 2⁻¹⁰²².
const minNormal = 0x1p-1022

// Log returns the natural logarithm of x. For every x that is not a positive subnormal number
// (normal numbers, ±0, negatives, ±Inf, NaN) it is math.Log(x), bit for bit. For
// 0 < x < 2⁻¹⁰²², where math.Log on amd64 is wrong (golang/go#56600), it scales x by 2⁵² into
// the normal range, exactly, and returns math.Log(x·2⁵²) − 52·ln 2, within 1 ulp of ln x.
func Log(x float64) float64 {
	if x > 0 && x < minNormal {
		return math.Log(x*0x1p52) - 52*math.Ln2
	}
	return math.Log(x)
}

// Lgamma is math.Lgamma with the logarithm of Log: for every x except the subnormal numbers
// (0 < |x| < 2⁻¹⁰²²) it is math.Lgamma(x), bit for bit. There math.Lgamma returns −log|x| with
// the wrong logarithm of math.Log (golang/go#56600); Lgamma returns −Log(|x|), with the sign of x.
func Lgamma(x float64) (lgamma float64, sign int) {
	if a := math.Abs(x); a > 0 && a < minNormal {
		sign = 1
		if x < 0 {
			sign = -1
		}
		return -Log(a), sign
	}
	return math.Lgamma(x)
}

// Pow returns x**y. Wherever math.Pow does not take the logarithm of a subnormal number — x
// normal, ±0, ±Inf or NaN, x negative, y an integer, ±½, ±Inf or NaN — it is math.Pow(x, y),
// bit for bit. For 0 < x < 2⁻¹⁰²² and any other y, where math.Pow multiplies the fractional
// part of y by the wrong logarithm of math.Log (golang/go#56600; math.Pow(1e−310, 0.25) is
// 1.03e−77 instead of 3.16e−78), it splits x = f·2ᵉ exactly, f ∈ [½, 1), and returns
// e^{y·ln f + r·ln 2}·2ⁿ with e·y = n + r carried exactly (see powSubnormal): within 2 ulp of
// x^y, the unit being 2⁻¹⁰⁷⁴ where x^y is subnormal or rounds to 0.
func Pow(x, y float64) float64 {
	if !(x > 0 && x < minNormal) || math.IsNaN(y) || y == math.Trunc(y) || y == 0.5 || y == -0.5 {
		return math.Pow(x, y)
	}
	return powSubnormal(x, y)
}

// powSubnormal is x^y for a subnormal x > 0 and a finite non-integer y. With x = f·2ᵉ
// (f ∈ [½, 1), −1073 ≤ e ≤ −1022), math.FMA splits e·y = hi + lo exactly; with n the integer
// nearest hi (hi − n is exact), r = (hi − n) + lo, |r| ≤ ½ + 2⁻⁴², is rounded once, by at most
// 2⁻⁵⁴. Then x^y = e^{y·ln f + r·ln 2}·2ⁿ, where the argument of the exponential is below 2.1 in
// magnitude and within a few 2⁻⁵⁴ (no large logarithm is scaled by y, unlike in math.Pow), and
// the scaling by 2ⁿ rounds once more only where the result is subnormal. For |y| > 2,
// x^y < 2⁻²⁰⁴⁴ or x^y > 2²⁰⁴⁴, beyond float64: 0 or +Inf.
func powSubnormal(x, y float64) float64 {
	if math.Abs(y) > 2 {
		if y > 0 {
			return 0
		}
		return math.Inf(1)
	}
	f, e := math.Frexp(x)
	ey := float64(e)
	hi := ey * y
	lo := math.FMA(ey, y, -hi)
	n := math.Round(hi)
	r := (hi - n) + lo
	return math.Ldexp(math.Exp(y*math.Log(f)+r*math.Ln2), int(n))
}
