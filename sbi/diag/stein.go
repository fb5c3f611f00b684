package diag

import (
	"fmt"
	"math"
)

// TargetKernelKind is the kernel l on the target space 𝒴 inside the Stein kernel.
type TargetKernelKind int

const (
	// GaussianTarget is l(y, y') = exp(−‖y − y'‖²/(2ℓ²)).
	GaussianTarget TargetKernelKind = iota
	// IMQTarget is the inverse multiquadric l(y, y') = (1 + ‖y − y'‖²/ℓ²)^(−1/2).
	IMQTarget
)

func (k TargetKernelKind) String() string {
	if k == IMQTarget {
		return "IMQ"
	}
	return "Gaussian"
}

// SteinKernel is the Langevin–Stein kernel in y of the KCCSD (Glaser et al., eq. 10):
//
//	h = l(y,y') sᵀs' + Σᵢ ∂²l/∂yᵢ∂y'ᵢ + sᵀ∇_{y'} l + s'ᵀ∇_y l,
//
// with s = ∇ log p(y), s' = ∇ log p'(y'), in closed form for the Gaussian kernel
// (h = l[sᵀs' + d/ℓ² − ‖r‖²/ℓ⁴ + (s − s')ᵀr/ℓ²], r = y − y') and the IMQ kernel. When gs and
// gs2 are not nil it also writes ∂h/∂s = l s' + ∇_{y'} l and ∂h/∂s' = l s + ∇_y l into them: h
// is bilinear in the scores, so a penalty can backpropagate through them cheaply.
func SteinKernel(kind TargetKernelKind, ell float64, y, y2, s, s2, gs, gs2 []float64) float64 {
	d := len(y)
	if len(y2) != d || len(s) != d || len(s2) != d {
		panic(fmt.Sprintf("diag: SteinKernel lengths y %d, y' %d, s %d, s' %d; want all equal", d, len(y2), len(s), len(s2)))
	}
	var r2, ss, sr, s2r float64
	for i := range d {
		r := y[i] - y2[i]
		r2 += r * r
		ss += s[i] * s2[i]
		sr += s[i] * r
		s2r += s2[i] * r
	}
	l2 := ell * ell
	var l, gradCoef, trace float64 // ∇_y l = gradCoef·r, ∇_{y'} l = −gradCoef·r
	switch kind {
	case IMQTarget:
		const beta = -0.5
		u := 1 + r2/l2
		l = 1 / math.Sqrt(u)
		ub1 := l / u   // u^{β−1}
		ub2 := ub1 / u // u^{β−2}
		gradCoef = 2 * beta / l2 * ub1
		trace = -2*beta*float64(d)/l2*ub1 - 4*beta*(beta-1)/(l2*l2)*ub2*r2
	default:
		l = math.Exp(-r2 / (2 * l2))
		gradCoef = -l / l2
		trace = l * (float64(d)/l2 - r2/(l2*l2))
	}
	h := l*ss + trace - gradCoef*sr + gradCoef*s2r
	if gs != nil {
		for i := range d {
			r := y[i] - y2[i]
			gs[i] = l*s2[i] - gradCoef*r
		}
	}
	if gs2 != nil {
		for i := range d {
			r := y[i] - y2[i]
			gs2[i] = l*s[i] + gradCoef*r
		}
	}
	return h
}

// targetKernel is l itself, for the SKCE.
func targetKernel(kind TargetKernelKind, ell float64, y, y2 []float64) float64 {
	var r2 float64
	for i := range y {
		r := y[i] - y2[i]
		r2 += r * r
	}
	if kind == IMQTarget {
		return 1 / math.Sqrt(1+r2/(ell*ell))
	}
	return math.Exp(-r2 / (2 * ell * ell))
}
