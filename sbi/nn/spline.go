package nn

import (
	"fmt"
	"math"
)

// Limits of the rational-quadratic spline's bins, as in nflows (and sbi's NSF): every bin is
// at least MinBinWidth wide and MinBinHeight high, as fractions of the interval [−B, B], and
// every interior knot derivative is at least MinDerivative.
const (
	MinBinWidth   = 1e-3
	MinBinHeight  = 1e-3
	MinDerivative = 1e-3
	// MaxBins is the largest number of spline bins supported.
	MaxBins = 64
)

// SplineParams returns the number of unconstrained parameters per feature of a spline with
// the given number of bins: bins widths, bins heights and bins−1 interior derivatives.
func SplineParams(bins int) int { return 3*bins - 1 }

// knots holds one spline's knots computed from its unconstrained parameters.
type knots struct {
	k           int
	pw, ph      [MaxBins]float64     // softmax of the width / height parameters
	cw, ch, dv  [MaxBins + 1]float64 // knot positions x_i, y_i and derivatives δ_i
	widthScale  float64              // 1 − MinBinWidth·K
	heightScale float64
	bound       float64
}

// set computes the knots from u = [widths(K), heights(K), derivatives(K−1)]:
//
//	w = m + (1 − mK)·softmax(u_w),  x_0 = −B, x_i = −B + 2B Σ_{j<i} w_j, x_K = B,
//	δ_0 = δ_K = 1 (linear tails), δ_i = m_δ + softplus(u_δ,i).
func (s *knots) set(u []float64, bound float64) {
	k := (len(u) + 1) / 3
	s.k, s.bound = k, bound
	s.widthScale = 1 - MinBinWidth*float64(k)
	s.heightScale = 1 - MinBinHeight*float64(k)
	softmaxInto(s.pw[:k], u[:k])
	softmaxInto(s.ph[:k], u[k:2*k])
	s.cw[0], s.ch[0] = -bound, -bound
	cw, ch := 0.0, 0.0
	for i := 1; i < k; i++ {
		cw += MinBinWidth + s.widthScale*s.pw[i-1]
		ch += MinBinHeight + s.heightScale*s.ph[i-1]
		s.cw[i] = -bound + 2*bound*cw
		s.ch[i] = -bound + 2*bound*ch
	}
	s.cw[k], s.ch[k] = bound, bound
	s.dv[0], s.dv[k] = 1, 1
	for i := 1; i < k; i++ {
		s.dv[i] = MinDerivative + softplus(u[2*k+i-1])
	}
}

func softmaxInto(p, u []float64) {
	m := math.Inf(-1)
	for _, v := range u {
		m = max(m, v)
	}
	z := 0.0
	for i, v := range u {
		p[i] = math.Exp(v - m)
		z += p[i]
	}
	for i := range p {
		p[i] /= z
	}
}

// bin returns the index k of the bin [c_k, c_{k+1}) holding v, clamped to [0, K−1].
func bin(c []float64, k int, v float64) int {
	lo, hi := 0, k-1
	for lo < hi { // largest i ≤ K−1 with c_i ≤ v
		mid := (lo + hi + 1) / 2
		if c[mid] <= v {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// rqsForward evaluates the monotonic rational-quadratic spline of Durkan et al. (2019),
// "Neural Spline Flows", eqs. 4–5 (Gregory & Delbourgo 1982), at x inside [−B, B]:
// with ξ = (x − x_k)/w_k, s = h_k/w_k,
//
//	y = y_k + h_k (s ξ² + δ_k ξ(1−ξ)) / (s + (δ_k + δ_{k+1} − 2s) ξ(1−ξ)),
//	dy/dx = s² (δ_{k+1} ξ² + 2s ξ(1−ξ) + δ_k (1−ξ)²) / (s + (δ_k + δ_{k+1} − 2s) ξ(1−ξ))².
//
// It returns y and log dy/dx.
func (s *knots) forward(x float64) (y, logDet float64, k int) {
	k = bin(s.cw[:], s.k, x)
	xk, wk := s.cw[k], s.cw[k+1]-s.cw[k]
	yk, hk := s.ch[k], s.ch[k+1]-s.ch[k]
	dk, dk1 := s.dv[k], s.dv[k+1]
	xi := (x - xk) / wk
	sl := hk / wk
	t := xi * (1 - xi)
	num := sl*xi*xi + dk*t
	den := sl + (dk+dk1-2*sl)*t
	y = yk + hk*num/den
	m := dk1*xi*xi + 2*sl*t + dk*(1-xi)*(1-xi)
	logDet = 2*math.Log(sl) + math.Log(m) - 2*math.Log(den)
	return y, logDet, k
}

// inverse solves the spline equation for x given y inside [−B, B] (the root of the quadratic
// in ξ of Durkan et al. 2019, eqs. 6–8, in its numerically stable form ξ = 2c/(−b − √(b²−4ac)))
// and returns x and log dx/dy.
func (s *knots) inverse(y float64) (x, logDet float64) {
	k := bin(s.ch[:], s.k, y)
	xk, wk := s.cw[k], s.cw[k+1]-s.cw[k]
	yk, hk := s.ch[k], s.ch[k+1]-s.ch[k]
	dk, dk1 := s.dv[k], s.dv[k+1]
	sl := hk / wk
	dy := y - yk
	a := dy*(dk+dk1-2*sl) + hk*(sl-dk)
	b := hk*dk - dy*(dk+dk1-2*sl)
	c := -sl * dy
	disc := math.Max(b*b-4*a*c, 0)
	xi := 2 * c / (-b - math.Sqrt(disc))
	x = xi*wk + xk
	t := xi * (1 - xi)
	den := sl + (dk+dk1-2*sl)*t
	m := dk1*xi*xi + 2*sl*t + dk*(1-xi)*(1-xi)
	return x, -(2*math.Log(sl) + math.Log(m) - 2*math.Log(den))
}

// backward adds to gu (length 3K−1) the gradient with respect to the unconstrained
// parameters, and returns the gradient with respect to x, of gy·y + gl·log dy/dx at x inside
// [−B, B]. The chain goes ξ, s, δ → knot positions → cumulative sums → softmax / softplus.
func (s *knots) backward(x, gy, gl float64, u, gu []float64) (gx float64) {
	K := s.k
	k := bin(s.cw[:], K, x)
	xk, wk := s.cw[k], s.cw[k+1]-s.cw[k]
	hk := s.ch[k+1] - s.ch[k]
	dk, dk1 := s.dv[k], s.dv[k+1]
	xi := (x - xk) / wk
	sl := hk / wk
	t := xi * (1 - xi)
	tp := 1 - 2*xi // dt/dξ
	num := sl*xi*xi + dk*t
	den := sl + (dk+dk1-2*sl)*t
	m := dk1*xi*xi + 2*sl*t + dk*(1-xi)*(1-xi)
	den2 := den * den

	numXi := 2*sl*xi + dk*tp
	denXi := (dk + dk1 - 2*sl) * tp
	mXi := 2*dk1*xi + 2*sl*tp - 2*dk*(1-xi)

	gXi := gy*hk*(numXi*den-num*denXi)/den2 + gl*(mXi/m-2*denXi/den)
	gS := gy*hk*(xi*xi*den-num*(1-2*t))/den2 + gl*(2/sl+2*t/m-2*(1-2*t)/den)
	gDk := gy*hk*t*(den-num)/den2 + gl*((1-xi)*(1-xi)/m-2*t/den)
	gDk1 := -gy*hk*num*t/den2 + gl*(xi*xi/m-2*t/den)

	gx = gXi / wk
	gXk := -gXi / wk
	gWk := -gXi*xi/wk - gS*sl/wk
	gHk := gy*num/den + gS/wk
	gYk := gy

	// knot positions: x_k and w_k = x_{k+1} − x_k; only interior knots 1…K−1 are free
	var gcw, gch [2]float64 // gradients of c_k and c_{k+1}
	gcw[0], gcw[1] = gXk-gWk, gWk
	gch[0], gch[1] = gYk-gHk, gHk
	splineSoftmaxBack(gu[:K], s.pw[:K], k, gcw, 2*s.bound*s.widthScale)
	splineSoftmaxBack(gu[K:2*K], s.ph[:K], k, gch, 2*s.bound*s.heightScale)

	// derivatives δ_i = m + softplus(u) for interior i
	if k >= 1 {
		gu[2*K+k-1] += gDk * sigmoid(u[2*K+k-1])
	}
	if k+1 <= K-1 {
		gu[2*K+k] += gDk1 * sigmoid(u[2*K+k])
	}
	return gx
}

// splineSoftmaxBack propagates gradients of knots c_k, c_{k+1} (gc) back to the softmax
// logits: c_i = −B + scale·Σ_{j<i} p_j + const for 1 ≤ i ≤ K−1, so ∂c_i/∂p_j = scale·[j < i].
func splineSoftmaxBack(gu, p []float64, k int, gc [2]float64, scale float64) {
	K := len(p)
	var gp [MaxBins]float64
	for r, i := range [2]int{k, k + 1} {
		if i < 1 || i > K-1 || gc[r] == 0 {
			continue
		}
		for j := 0; j < i; j++ {
			gp[j] += scale * gc[r]
		}
	}
	dot := 0.0
	for j := 0; j < K; j++ {
		dot += p[j] * gp[j]
	}
	for j := 0; j < K; j++ {
		gu[j] += p[j] * (gp[j] - dot)
	}
}

// RQSpline applies, feature by feature, the monotonic rational-quadratic spline of Durkan et
// al. (2019) with linear tails: inside [−bound, bound] the spline with bins bins given by the
// unconstrained parameters, outside it the identity. x is n×D; params is n×(D·(3·bins−1)) with
// the parameters of feature d in columns d·P … d·P+P−1 ordered [widths, heights, interior
// derivatives] (see SplineParams). It returns y (n×D) and the n×1 log|det ∂y/∂x| summed over
// features. The backward pass is analytic (one fused kernel).
func (tp *Tape) RQSpline(x, params *Tensor, bins int, bound float64) (y, logDet *Tensor) {
	D, P := checkSpline(x, params, bins, bound)
	g := tp.grads(x, params)
	y = tp.tensor(x.Rows, D, g)
	logDet = tp.tensor(x.Rows, 1, g)
	var s knots
	for i := 0; i < x.Rows; i++ {
		ld := 0.0
		for d := 0; d < D; d++ {
			v := x.Data[i*D+d]
			if v < -bound || v > bound {
				y.Data[i*D+d] = v
				continue
			}
			s.set(params.Data[i*params.Cols+d*P:i*params.Cols+(d+1)*P], bound)
			yv, l, _ := s.forward(v)
			y.Data[i*D+d] = yv
			ld += l
		}
		logDet.Data[i] = ld
	}
	if g {
		n := tp.record(backRQSpline, y, x, params, logDet)
		n.i, n.k = bins, bound
	}
	return y, logDet
}

func backRQSpline(n *node) {
	x, params, y, logDet := n.a, n.b, n.out, n.c
	bound := n.k
	D := x.Cols
	P := params.Cols / D
	var s knots
	var gu [3 * MaxBins]float64
	for i := 0; i < x.Rows; i++ {
		gl := logDet.Grad[i]
		for d := 0; d < D; d++ {
			v := x.Data[i*D+d]
			gy := y.Grad[i*D+d]
			if v < -bound || v > bound {
				if x.Grad != nil {
					x.Grad[i*D+d] += gy
				}
				continue
			}
			u := params.Data[i*params.Cols+d*P : i*params.Cols+(d+1)*P]
			s.set(u, bound)
			g := gu[:P]
			clear(g)
			gx := s.backward(v, gy, gl, u, g)
			if x.Grad != nil {
				x.Grad[i*D+d] += gx
			}
			if params.Grad != nil {
				pg := params.Grad[i*params.Cols+d*P : i*params.Cols+(d+1)*P]
				for j, v := range g {
					pg[j] += v
				}
			}
		}
	}
}

func checkSpline(x, params *Tensor, bins int, bound float64) (D, P int) {
	if bins < 1 || bins > MaxBins {
		panic(fmt.Sprintf("nn: spline with %d bins, want 1…%d", bins, MaxBins))
	}
	if !(bound > 0) || math.IsInf(bound, 0) {
		panic(fmt.Sprintf("nn: spline bound %v, want a finite value > 0", bound))
	}
	D, P = x.Cols, SplineParams(bins)
	if params.Rows != x.Rows || params.Cols != D*P {
		panic(fmt.Sprintf("nn: spline parameters %d×%d, want %d×%d for input %d×%d and %d bins",
			params.Rows, params.Cols, x.Rows, D*P, x.Rows, D, bins))
	}
	return D, P
}

// RQSplineForward evaluates one spline (parameters u of length 3K−1, see RQSpline) at x and
// returns y and log dy/dx; outside [−bound, bound] it is the identity.
func RQSplineForward(x float64, u []float64, bound float64) (y, logDet float64) {
	if x < -bound || x > bound {
		return x, 0
	}
	var s knots
	s.set(u, bound)
	y, logDet, _ = s.forward(x)
	return y, logDet
}

// RQSplineInverse inverts RQSplineForward: it returns x with RQSplineForward(x) = y and
// log dx/dy. It is used for sampling and carries no gradient.
func RQSplineInverse(y float64, u []float64, bound float64) (x, logDet float64) {
	if y < -bound || y > bound {
		return y, 0
	}
	var s knots
	s.set(u, bound)
	return s.inverse(y)
}
