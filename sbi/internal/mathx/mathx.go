// Package mathx holds the elementary functions of package math that the library needs correct
// where the standard library's are not. On amd64, math.Log (and through it math.Lgamma) is
// wrong for subnormal arguments, 0 < x < 2⁻¹⁰²² (golang/go#56600): math.Log(5e−324) is −709.09
// instead of −744.44, math.Log(1e−310) is −709.09 instead of −713.80. A log-density that takes
// the logarithm of a value that can underflow to that range (a coordinate near the edge of a
// support, a parameter, a width) calls the functions here instead.
package mathx

import "math"

// MinNormal is the smallest positive normal float64, 2⁻¹⁰²²: below it, numbers are
// subnormal and lose precision, and math.Log on amd64 is wrong.
const MinNormal = 0x1p-1022

// Log returns the natural logarithm of x. For every x that is not a positive subnormal number
// (normal numbers, ±0, negatives, ±Inf, NaN) it is math.Log(x), bit for bit. For
// 0 < x < 2⁻¹⁰²², where math.Log on amd64 is wrong (golang/go#56600), it scales x by 2⁵² into
// the normal range, exactly, and returns math.Log(x·2⁵²) − 52·ln 2, within 1 ulp of ln x.
func Log(x float64) float64 {
	if x > 0 && x < MinNormal {
		return math.Log(x*0x1p52) - 52*math.Ln2
	}
	return math.Log(x)
}

// Lgamma is math.Lgamma with the logarithm of Log: for every x except the subnormal numbers
// (0 < |x| < 2⁻¹⁰²²) it is math.Lgamma(x), bit for bit. There math.Lgamma returns −log|x| with
// the wrong logarithm of math.Log (golang/go#56600); Lgamma returns −Log(|x|), with the sign of x.
func Lgamma(x float64) (lgamma float64, sign int) {
	if a := math.Abs(x); a > 0 && a < MinNormal {
		sign = 1
		if x < 0 {
			sign = -1
		}
		return -Log(a), sign
	}
	return math.Lgamma(x)
}
