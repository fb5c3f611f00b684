package kernels

import "math"

// Scalar functions that package nn and the flows' transforms share; they have no assembly
// twin.

// Softplus is log(1 + eˣ) = max(x, 0) + log1p(e^−|x|), with log1p(t) computed as
// log(u)·t/(u − 1), u = 1 + t (Goldberg's correction: accurate to a few ulps, and cheaper
// than math.Log1p).
func Softplus(x float64) float64 { return SoftplusFrom(x, math.Exp(-math.Abs(x))) }

// SoftplusFrom is Softplus(x) given t = e^−|x|.
func SoftplusFrom(x, t float64) float64 { return SoftplusWith(x, t, math.Log(1+t)) }

// SoftplusWith is SoftplusFrom given also lu = ln(1 + t), for callers that take the
// logarithms of a block at once: max(x, 0) + log1p(t), with log1p(t) = lu·t/((1 + t) − 1), which
// corrects the rounding of 1 + t, and t itself where 1 + t rounds to 1.
func SoftplusWith(x, t, lu float64) float64 {
	u := 1 + t
	l := t
	if u != 1 {
		l = lu * t / (u - 1)
	}
	return max(x, 0) + l
}

// Sigmoid is 1/(1 + e^−x), computed without overflow for either sign of x.
func Sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}
