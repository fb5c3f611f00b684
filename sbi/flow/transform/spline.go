package transform

import (
	"fmt"
	"math"

	"github.com/gosbi/gosbi/sbi/internal/kernels"
	"github.com/gosbi/gosbi/sbi/internal/mathx"
	"github.com/gosbi/gosbi/sbi/internal/par"
	"github.com/gosbi/gosbi/sbi/nn"
)

// Limits of the rational-quadratic spline's bins, as in nflows (and sbi's NSF): every bin is
// at least MinBinWidth wide and MinBinHeight high, as fractions of the interval [−B, B], and
// every interior knot derivative is at least MinDerivative.
const (
	MinBinWidth   = 1e-3
	MinBinHeight  = 1e-3
	MinDerivative = 1e-3
	// MaxBins is the largest number of spline bins supported.
	MaxBins = kernels.MaxBins
)

// SplineParams returns the number of unconstrained parameters per feature of a spline with
// the given number of bins: bins widths, bins heights and bins−1 interior derivatives.
func SplineParams(bins int) int { return 3*bins - 1 }

// knots holds one spline's knots computed from its unconstrained parameters.
type knots struct {
	k           int
	pw, ph      [MaxBins]float64     // softmax of the width / height parameters
	cw, ch      [MaxBins + 1]float64 // knot positions x_i, y_i
	widthScale  float64              // 1 − MinBinWidth·K
	heightScale float64
	bound       float64
	u           []float64        // the unconstrained parameters
	ed          [MaxBins]float64 // e^−|u_δ,i| of the interior derivatives, when deltas == deltasFromED
	dl          []float64        // the interior derivatives δ_1…δ_{K−1}, when deltas == deltasGiven
	deltas      int              // how delta finds δ_i: deltasFromU, deltasFromED or deltasGiven
}

// Sources of the knot derivatives (see delta).
const (
	deltasFromU  = iota // softplus of the parameter
	deltasFromED        // softplus from the saved e^−|u|
	deltasGiven         // computed beforehand for a block of splines (splineBlock)
)

// set computes the knots from u = [widths(K), heights(K), derivatives(K−1)]:
//
//	w = m + (1 − mK)·softmax(u_w),  x_0 = −B, x_i = −B + 2B Σ_{j<i} w_j, x_K = B,
//
// and likewise the heights. The knot derivatives δ_i are computed on demand by delta.
func (s *knots) set(u []float64, bound float64) {
	k := (len(u) + 1) / 3
	// the exponentials of both softmaxes and of the derivatives' softplus in one vector call
	var e [3*MaxBins + 3]float64
	mw, mh := maxOf(u[:k]), maxOf(u[k:2*k])
	for i := 0; i < k; i++ {
		e[i] = u[i] - mw
		e[k+i] = u[k+i] - mh
	}
	for i, v := range u[2*k:] {
		e[2*k+i] = -math.Abs(v)
	}
	n4 := (len(u) + 3) &^ 3 // whole vectors: the padding holds zeros
	kernels.Exp(e[:n4], e[:n4])
	normalize(s.pw[:k], e[:k])
	normalize(s.ph[:k], e[k:2*k])
	copy(s.ed[:k-1], e[2*k:len(u)])
	s.positions(u, bound)
	s.deltas = deltasFromED
}

// maxOf returns the largest value of u (NaN values are passed over; they propagate through
// the exponentials that follow).
func maxOf(u []float64) float64 {
	m := u[0]
	for _, v := range u[1:] {
		if v > m {
			m = v
		}
	}
	return m
}

// normalize sets p = e / Σe and reports whether Σe is finite (a NaN or an infinite sum
// propagates into p).
func normalize(p, e []float64) bool {
	z := 0.0
	for _, v := range e {
		z += v
	}
	r := 1 / z
	for i, v := range e {
		p[i] = v * r
	}
	return z <= math.MaxFloat64
}

// splineBlock computes, for a block of splines, the exponentials of their parameters and
// their knot derivatives with one vector call each, where one spline alone (knots.set) has
// too few values to fill the vectors. The softmaxes are shifted by their first value rather
// than their largest (which would cost a mispredicted branch per value): where that
// overflows, the spline falls back to knots.set.
type splineBlock struct {
	e     []float64                 // per spline: e^(u_w,i − u_w,0), e^(u_h,i − u_h,0), e^−|u_δ,i| (3K−1 values)
	dl    []float64                 // per spline: δ_1…δ_{K−1}
	us    [splineBlockLen][]float64 // the parameters of the block's splines (callers' scratch)
	at    [splineBlockLen]int       // where each spline's value goes (callers' scratch)
	deriv [splineBlockLen]float64   // derivatives, then their logarithms (callers' scratch)
	s     knots                     // the knots of the spline being evaluated
	lanes kernels.Lanes             // the vector kernel's memory (byLanes)
}

// splineBlocks holds the blocks in use by no goroutine.
var splineBlocks par.FreeList[splineBlock]

// prepare computes the block's values for the splines with parameters us (each 3K−1 values).
func (b *splineBlock) prepare(us [][]float64, k int) {
	p := 3*k - 1
	if n := len(us) * p; cap(b.e) < n {
		b.e = make([]float64, n)
	}
	if n := len(us) * (k - 1); cap(b.dl) < n {
		b.dl = make([]float64, n)
	}
	e, dl := b.e[:len(us)*p], b.dl[:len(us)*(k-1)]
	for j, u := range us {
		ej := e[j*p : (j+1)*p]
		w0, h0 := u[0], u[k]
		for i := 0; i < k; i++ {
			ej[i] = u[i] - w0
			ej[k+i] = u[k+i] - h0
		}
		for i, v := range u[2*k:] {
			ej[2*k+i] = -math.Abs(v)
		}
	}
	kernels.Exp(e, e)
	// δ = m_δ + kernels.Softplus(v), kernels.Softplus(v) = max(v, 0) + log1p(t) with t = e^−|v|, and
	// log1p(t) = ln(1 + t)·t/((1 + t) − 1) (Goldberg's correction, as in softplusFrom)
	for j := range us {
		for i, t := range e[j*p+2*k : (j+1)*p] {
			dl[j*(k-1)+i] = 1 + t
		}
	}
	kernels.Log(dl, dl)
	for j, u := range us {
		for i, v := range u[2*k:] {
			t := e[j*p+2*k+i]
			lp := t
			if w := 1 + t; w != 1 {
				lp = dl[j*(k-1)+i] * t / (w - 1)
			}
			dl[j*(k-1)+i] = MinDerivative + max(v, 0) + lp
		}
	}
}

// knots sets s to spline j of the block, whose parameters are u.
func (b *splineBlock) knots(s *knots, j int, u []float64, bound float64) {
	k := (len(u) + 1) / 3
	p := len(u)
	ej := b.e[j*p : (j+1)*p]
	if !normalize(s.pw[:k], ej[:k]) || !normalize(s.ph[:k], ej[k:2*k]) {
		s.set(u, bound) // e^(u_i − u_0) overflowed
		return
	}
	s.positions(u, bound)
	s.dl = b.dl[j*(k-1) : (j+1)*(k-1)]
	s.deltas = deltasGiven
}

// restore is set with the softmaxes already known (saved by the forward pass).
func (s *knots) restore(u []float64, bound float64, pw, ph []float64) {
	k := (len(u) + 1) / 3
	copy(s.pw[:k], pw)
	copy(s.ph[:k], ph)
	s.positions(u, bound)
	s.deltas = deltasFromU
}

func (s *knots) positions(u []float64, bound float64) {
	k := (len(u) + 1) / 3
	s.k, s.bound, s.u = k, bound, u
	s.widthScale = 1 - MinBinWidth*float64(k)
	s.heightScale = 1 - MinBinHeight*float64(k)
	s.cw[0], s.ch[0] = -bound, -bound
	cw, ch := 0.0, 0.0
	for i := 1; i < k; i++ {
		cw += MinBinWidth + s.widthScale*s.pw[i-1]
		ch += MinBinHeight + s.heightScale*s.ph[i-1]
		s.cw[i] = -bound + 2*bound*cw
		s.ch[i] = -bound + 2*bound*ch
	}
	s.cw[k], s.ch[k] = bound, bound
}

// delta returns the derivative at knot i: 1 at the ends (linear tails), m_δ + kernels.Softplus(u_δ,i)
// inside.
func (s *knots) delta(i int) float64 {
	if i == 0 || i == s.k {
		return 1
	}
	switch s.deltas {
	case deltasGiven:
		return s.dl[i-1]
	case deltasFromED:
		return MinDerivative + kernels.SoftplusFrom(s.u[2*s.k+i-1], s.ed[i-1])
	}
	return MinDerivative + kernels.Softplus(s.u[2*s.k+i-1])
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
func (s *knots) eval(x float64) (y, logDet float64) {
	y, d, ok := s.evalDeriv(x)
	if !ok {
		return y, d
	}
	return y, math.Log(d)
}

// evalDeriv is eval with dy/dx in place of its logarithm, for callers that take the
// logarithms of many splines at once. Where dy/dx is not a normal float64 (knot derivatives
// beyond about 1e154, where the square of the denominator overflows, or a quotient that
// underflows), it reports ok false and returns log dy/dx itself, from rqsEdge.
func (s *knots) evalDeriv(x float64) (y, deriv float64, ok bool) {
	k := bin(s.cw[:], s.k, x)
	xk, wk := s.cw[k], s.cw[k+1]-s.cw[k]
	yk, hk := s.ch[k], s.ch[k+1]-s.ch[k]
	dk, dk1 := s.delta(k), s.delta(k+1)
	xi := (x - xk) / wk
	sl := hk / wk
	t := xi * (1 - xi)
	num := sl*xi*xi + dk*t
	den := sl + (dk+dk1-2*sl)*t
	y = yk + hk*num/den
	if !(math.Abs(y) <= math.MaxFloat64) { // h_k·num overflows (a steep bin of a wide spline)
		y = yk + hk*(num/den)
	}
	m := dk1*xi*xi + 2*sl*t + dk*(1-xi)*(1-xi)
	deriv = sl * sl * m / (den * den)
	if deriv >= mathx.MinNormal && deriv <= math.MaxFloat64 {
		return y, deriv, true
	}
	r, ld := rqsEdge(xi, sl, dk, dk1)
	if !(math.Abs(den) <= math.MaxFloat64) { // ±Inf, or NaN where ξ rounds to 0 or 1 (∞·0)
		// r within an ulp of 1 can put y_k + h_k·r past y_{k+1}: keep y in its bin
		y = min(max(yk+hk*r, yk), s.ch[k+1])
	}
	return y, ld, false
}

// rqsEdge returns num/den and log dy/dx of evalDeriv where s²m/den² is not a normal number:
// the logarithm is taken factor by factor, 2 log s + log m − 2 log den, each factor a normal
// number (s, the δ and m/(ξ² + 2t + (1−ξ)²) are at least about 1e−3). Where δ_k or δ_{k+1}
// exceeds a quarter of the largest float64 (δ_k + δ_{k+1} or 2δ might overflow), δ_k, δ_{k+1}
// and s inside num, den and m are first quartered (exactly: they are
// normal numbers), which quarters num, den and m and leaves num/den as it is.
func rqsEdge(xi, sl, dk, dk1 float64) (ratio, logDeriv float64) {
	q := 1.0
	if max(dk, dk1) > math.MaxFloat64/4 {
		q = 0.25
	}
	dk, dk1, sq := dk*q, dk1*q, sl*q
	t := xi * (1 - xi)
	num := sq*xi*xi + dk*t
	den := sq + (dk+dk1-2*sq)*t
	m := dk1*xi*xi + 2*sq*t + dk*(1-xi)*(1-xi)
	return num / den, 2*math.Log(sl) + math.Log(m) - 2*math.Log(den) + math.Log(q)
}

// rqsEdgeGrad returns the partial derivatives, in ξ, s, δ_k and δ_{k+1}, of
// gy·h_k·num/den + gl·log(s²m/den²) where backward's quotients over den² overflow: each
// (A·den − num·B)/den² is computed as (A − r·B)/den with r = num/den, and δ_k, δ_{k+1}, s inside
// num, den and m are quartered where a δ exceeds a quarter of the largest float64 (as in rqsEdge), the terms that
// scale as 1/den or 1/m then quartered back.
func rqsEdgeGrad(xi, sl, dk, dk1, hk, gy, gl float64) (gXi, gS, gDk, gDk1 float64) {
	q := 1.0
	if max(dk, dk1) > math.MaxFloat64/4 {
		q = 0.25
	}
	dk, dk1, sq := dk*q, dk1*q, sl*q
	t := xi * (1 - xi)
	tp := 1 - 2*xi
	num := sq*xi*xi + dk*t
	den := sq + (dk+dk1-2*sq)*t
	m := dk1*xi*xi + 2*sq*t + dk*(1-xi)*(1-xi)
	r := num / den
	numXi := 2*sq*xi + dk*tp
	denXi := (dk + dk1 - 2*sq) * tp
	mXi := 2*dk1*xi + 2*sq*tp - 2*dk*(1-xi)
	gXi = gy*hk*((numXi-r*denXi)/den) + gl*(mXi/m-2*denXi/den)
	gS = gy*hk*((xi*xi-r*(1-2*t))/den)*q + gl*(2/sl+(2*t/m-2*(1-2*t)/den)*q)
	gDk = gy*hk*(t*(1-r)/den)*q + gl*((1-xi)*(1-xi)/m-2*t/den)*q
	gDk1 = -gy*hk*(r*t/den)*q + gl*(xi*xi/m-2*t/den)*q
	return gXi, gS, gDk, gDk1
}

// inverse solves the spline equation for x given y inside [−B, B] (the root of the quadratic
// in ξ of Durkan et al. 2019, eqs. 6–8, in its numerically stable form ξ = 2c/(−b − √(b²−4ac)))
// and returns x and, when wantLogDet, log dx/dy (0 otherwise). Where that form is not
// accurate (see plainRootOK) or gives no finite x, ξ comes from rqsEdgeRoot.
func (s *knots) inverse(y float64, wantLogDet bool) (x, logDet float64) {
	k := bin(s.ch[:], s.k, y)
	xk, wk := s.cw[k], s.cw[k+1]-s.cw[k]
	yk, hk := s.ch[k], s.ch[k+1]-s.ch[k]
	dk, dk1 := s.delta(k), s.delta(k+1)
	sl := hk / wk
	dy := y - yk
	a := dy*(dk+dk1-2*sl) + hk*(sl-dk)
	b := hk*dk - dy*(dk+dk1-2*sl)
	c := -sl * dy
	bb, ac4 := b*b, 4*a*c
	disc := math.Max(bb-ac4, 0)
	xi := 2 * c / (-b - math.Sqrt(disc))
	x = xi*wk + xk
	if !plainRootOK(b, bb, ac4) || !(math.Abs(x) <= math.MaxFloat64) {
		xi = rqsEdgeRoot((y-yk)/hk, (s.ch[k+1]-y)/hk, sl, dk, dk1)
		x = xi*wk + xk
	}
	if !wantLogDet {
		return x, 0
	}
	t := xi * (1 - xi)
	den := sl + (dk+dk1-2*sl)*t
	m := dk1*xi*xi + 2*sl*t + dk*(1-xi)*(1-xi)
	if d := sl * sl * m / (den * den); d >= mathx.MinNormal && d <= math.MaxFloat64 {
		return x, -kernels.LogOne(d)
	}
	_, ld := rqsEdge(xi, sl, dk, dk1)
	return x, -ld
}

// plainRootOK reports whether inverse's root ξ = 2c/(−b − √(b² − 4ac)), given b, b² and 4ac,
// is accurate: b² and 4ac are finite, and either b ≥ 0 (no cancellation) or |4ac| ≥ 10⁻⁶·b²
// (−b − √(b² − 4ac) loses at most about 20 bits). Both fail only where a knot derivative is far
// beyond those of trained flows (the loss is about δ/(4s) with δ the larger knot derivative);
// the vector kernel declines the same splines.
func plainRootOK(b, bb, ac4 float64) bool {
	abs := math.Abs(ac4)
	return bb <= math.MaxFloat64 && abs <= math.MaxFloat64 && (b >= 0 || abs >= bb*rootCancelTol)
}

// rootCancelTol is the least |4ac|/b² at which plainRootOK takes inverse's root for b < 0: the
// subtraction −b − √(b² − 4ac) then loses at most about 20 bits. The vector kernels use the
// same constant (c[13] of kernels.Lanes).
const rootCancelTol = 1e-6

// rqsEdgeRoot returns the root ξ in [0, 1] of the spline's quadratic where inverse's form is
// not accurate, from η = (y − y_k)/h_k and η′ = (y_{k+1} − y)/h_k. Dividing the quadratic by h_k
// and writing its coefficients with η′, where inverse's b = h_k·δ_k − Δy·(δ_k + δ_{k+1} − 2s)
// subtracts two huge terms, gives
//
//	B = δ_k·η′ − δ_{k+1}·η + 2s·η,  A = s − B,  C = −s·η,
//
// which neither overflow (each product is at most a knot derivative) nor lose the 2s·η that
// remains when δ_k·η′ and δ_{k+1}·η cancel. The root is taken in the form without cancellation
// for the sign of B: 2C/(−B − √D) for B ≥ 0, (−B + √D)/(2A) for B < 0 (A > s there), D = B² − 4AC;
// where B² might overflow, √D is |B|·√(1 − 4(A/B)(C/B)).
func rqsEdgeRoot(eta, etaC, sl, dk, dk1 float64) float64 {
	b := dk*etaC - dk1*eta + 2*sl*eta
	a := sl - b
	c := -sl * eta
	var xi float64
	if math.Abs(b) <= 1e150 {
		sq := math.Sqrt(math.Max(b*b-4*a*c, 0))
		if b >= 0 {
			xi = 2 * c / (-b - sq)
		} else {
			xi = (-b + sq) / (2 * a)
		}
	} else {
		q := 1 + math.Sqrt(math.Max(1-4*(a/b)*(c/b), 0))
		if b >= 0 {
			xi = -2 * (c / b) / q
		} else {
			xi = -(b / a) * q / 2
		}
	}
	return math.Min(math.Max(xi, 0), 1)
}

// backward adds to gu (length 3K−1) the gradient with respect to the unconstrained
// parameters, and returns the gradient with respect to x, of gy·y + gl·log dy/dx at x inside
// [−B, B]. The chain goes ξ, s, δ → knot positions → cumulative sums → softmax / softplus.
func (s *knots) backward(x, gy, gl float64, u, gu []float64) (gx float64) {
	K := s.k
	k := bin(s.cw[:], K, x)
	xk, wk := s.cw[k], s.cw[k+1]-s.cw[k]
	hk := s.ch[k+1] - s.ch[k]
	dk, dk1 := s.delta(k), s.delta(k+1)
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
	if !(den2 <= math.MaxFloat64) || math.IsInf(gXi+gS+gDk+gDk1, 0) || math.IsNaN(gXi+gS+gDk+gDk1) {
		gXi, gS, gDk, gDk1 = rqsEdgeGrad(xi, sl, dk, dk1, hk, gy, gl)
	}

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

	// derivatives δ_i = m + kernels.Softplus(u) for interior i
	if k >= 1 {
		gu[2*K+k-1] += gDk * kernels.Sigmoid(u[2*K+k-1])
	}
	if k+1 <= K-1 {
		gu[2*K+k] += gDk1 * kernels.Sigmoid(u[2*K+k])
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

// Spline is the monotonic rational-quadratic spline transform of neural spline flows (Durkan
// et al. 2019; zuko's MonotonicRQSTransform) with linear tails: inside [−Bound, Bound] a spline
// of Bins bins given by the unconstrained parameters, outside it the identity. Its
// parameters per feature (SplineParams(Bins) of them) are ordered [widths, heights, interior
// derivatives]. It is the transform of flows of kind "nsf", with ReLU conditioners (nflows'
// and zuko's) whose output weights start at a tenth of their initial draw, so that every
// spline starts near the identity. Build it with NewSpline, which checks the settings; the
// methods panic on a Spline out of range.
type Spline struct {
	Bins  int     // 1…MaxBins
	Bound float64 // in (0, MaxBound]
}

func init() {
	Register("nsf", Registration{
		New:         func(s Settings) (Univariate, error) { return NewSpline(s.Bins, s.Bound) },
		Activation:  nn.ReLU,
		OutputScale: 0.1,
	})
}

// MaxBound is the largest Spline.Bound: the interval [−Bound, Bound] is 2·Bound long, and
// beyond MaxFloat64/2 that length overflows to +Inf and the spline's values to NaN.
const MaxBound = math.MaxFloat64 / 2

// NewSpline returns the spline transform of the given bins on [−bound, bound], or an error
// when bins is outside 1…MaxBins or bound is not in (0, MaxBound].
func NewSpline(bins int, bound float64) (Spline, error) {
	if bins < 1 || bins > MaxBins {
		return Spline{}, fmt.Errorf("transform: spline with %d bins, want 1…%d", bins, MaxBins)
	}
	if !(bound > 0 && bound <= MaxBound) {
		return Spline{}, fmt.Errorf("transform: spline bound %v, want a value in (0, MaxBound = %g]: the spline acts on [−bound, bound], whose length 2·bound must be a finite float64", bound, MaxBound)
	}
	return Spline{Bins: bins, Bound: bound}, nil
}

// Params returns SplineParams(s.Bins).
func (s Spline) Params() int { return SplineParams(s.Bins) }

// Forward applies the spline feature by feature on the tape tp. x is n×D; params is
// n×(D·P) with the parameters of feature d in columns d·P … d·P+P−1 (P = s.Params()). It
// returns y (n×D) and the n×1 log|det ∂y/∂x| summed over features. Without gradients the
// splines go eight (AVX-512) or four (AVX2) at a time through the vector kernel; the
// backward pass is analytic (one fused kernel) and reuses the softmaxes saved by the forward
// pass.
func (s Spline) Forward(tp *nn.Tape, x, params *nn.Tensor) (y, logDet *nn.Tensor) {
	bins, bound := s.Bins, s.Bound
	D, _ := checkSpline(x, params, bins, bound)
	g := tp.RequiresGrad(x, params)
	y = tp.Output(x.Rows, D, g)
	logDet = tp.Output(x.Rows, 1, g)
	j := splineJobs.Get()
	*j = splineJob{x: x, params: params, y: y, logDet: logDet, bins: bins, bound: bound}
	if g {
		j.saved = tp.Scratch(x.Len() * 2 * bins)
		j.inside = tp.ScratchInts(x.Len())
	}
	par.Range(x.Rows, splineGrain(D), j)
	if g {
		tp.Record(j, y)
	} else {
		j.Release()
	}
	return y, logDet
}

// splineGrain is the least number of rows given to one goroutine: about 128 spline
// evaluations, enough work that waking the goroutine costs a small part of it.
func splineGrain(d int) int { return max(1, 128/max(d, 1)) }

// splineJob evaluates the spline transform, or its backward pass, on a range of rows; it is
// the nn.Op that Spline.Forward records.
type splineJob struct {
	x, params, y, logDet *nn.Tensor
	bins                 int
	bound                float64
	saved                []float64 // per element: the width and height softmaxes
	inside               []int     // per element: 1 inside [−B, B], 0 in the tails
	backward             bool
}

// splineJobs holds the jobs recorded on no tape.
var splineJobs par.FreeList[splineJob]

// Backward adds the gradients of y and log-det to those of x and the parameters.
func (j *splineJob) Backward() {
	j.backward = true
	par.Range(j.x.Rows, splineGrain(j.x.Cols), j)
}

// Release drops the references to the step's tensors and returns the job to its free list.
func (j *splineJob) Release() {
	*j = splineJob{}
	splineJobs.Put(j)
}

func (j *splineJob) Do(lo, hi int) {
	if j.backward {
		j.back(lo, hi)
	} else {
		j.forward(lo, hi)
	}
}

func (j *splineJob) forward(lo, hi int) {
	x, params, y, logDet, bins, bound := j.x, j.params, j.y, j.logDet, j.bins, j.bound
	D := x.Cols
	P := SplineParams(bins)
	b := splineBlocks.Get()
	defer splineBlocks.Put(b)
	clear(logDet.Data[lo:hi])
	// an element in the tails has derivative 1: its logarithm where the logarithms are taken
	// one at a time (no gradient), 1 where a block's are taken by kernels.Log
	tail := 1.0
	if j.inside == nil {
		tail = 0
	}
	// elements go in blocks of splineBlockLen: their exponentials, knot derivatives and
	// log-derivatives are each taken by one vector call (or, without gradients, by the vector
	// spline kernel); the log-derivatives are added to their rows' log-determinants in order,
	// and an element in the tails adds log 1 = 0
	var edgeBuf [splineBlockLen]edgeLog
	edges := edgeBuf[:0] // the block's log-derivatives from rqsEdge
	for e0 := lo * D; e0 < hi*D; e0 += splineBlockLen {
		e1 := min(hi*D, e0+splineBlockLen)
		m := 0
		for e := e0; e < e1; e++ {
			if v := x.Data[e]; v < -bound || v > bound {
				y.Data[e], b.deriv[e-e0] = v, tail
				if j.inside != nil {
					j.inside[e] = 0
				}
				continue
			}
			i, d := e/D, e%D
			b.us[m], b.at[m] = params.Data[i*params.Cols+d*P:i*params.Cols+(d+1)*P], e
			m++
		}
		if j.inside == nil { // no gradient: the vector kernel first, which gives log-derivatives
			m = b.byLanes(m, bins, bound, kernels.LanesForward, x.Data, 1, func(e int, v, ld float64) {
				y.Data[e], b.deriv[e-e0] = v, ld
			})
		}
		b.prepare(b.us[:m], bins)
		for t, e := range b.at[:m] {
			b.knots(&b.s, t, b.us[t], bound)
			var ok bool
			y.Data[e], b.deriv[e-e0], ok = b.s.evalDeriv(x.Data[e])
			if !ok && j.inside != nil {
				// a log-derivative among derivatives: after the block's logarithms
				edges = append(edges, edgeLog{e - e0, b.deriv[e-e0]})
			}
			if j.inside == nil {
				if ok {
					b.deriv[e-e0] = kernels.LogOne(b.deriv[e-e0])
				}
				continue
			}
			j.inside[e] = 1
			copy(j.saved[e*2*bins:], b.s.pw[:bins])
			copy(j.saved[e*2*bins+bins:], b.s.ph[:bins])
		}
		if j.inside != nil {
			kernels.Log(b.deriv[:e1-e0], b.deriv[:e1-e0])
			for _, l := range edges {
				b.deriv[l.at] = l.v
			}
			edges = edges[:0]
		}
		for e := e0; e < e1; e++ {
			logDet.Data[e/D] += b.deriv[e-e0]
		}
	}
}

// edgeLog is the log-derivative of the element at of a block, from rqsEdge.
type edgeLog struct {
	at int
	v  float64
}

// splineBlockLen is the number of splines whose exponentials and logarithms are taken
// together.
const splineBlockLen = 32

func (j *splineJob) back(lo, hi int) {
	x, params, y, logDet, K, bound := j.x, j.params, j.y, j.logDet, j.bins, j.bound
	D := x.Cols
	P := SplineParams(K)
	var s knots
	var gu [3 * MaxBins]float64
	for i := lo; i < hi; i++ {
		gl := logDet.Grad[i]
		for d := 0; d < D; d++ {
			e := i*D + d
			gy := y.Grad[e]
			if j.inside[e] == 0 {
				if x.Grad != nil {
					x.Grad[e] += gy
				}
				continue
			}
			u := params.Data[i*params.Cols+d*P : i*params.Cols+(d+1)*P]
			s.restore(u, bound, j.saved[e*2*K:e*2*K+K], j.saved[e*2*K+K:e*2*K+2*K])
			g := gu[:P]
			clear(g)
			gx := s.backward(x.Data[e], gy, gl, u, g)
			if x.Grad != nil {
				x.Grad[e] += gx
			}
			if params.Grad != nil {
				pg := params.Grad[i*params.Cols+d*P : i*params.Cols+(d+1)*P]
				for k, v := range g {
					pg[k] += v
				}
			}
		}
	}
}

func checkSpline(x, params *nn.Tensor, bins int, bound float64) (D, P int) {
	if bins < 1 || bins > MaxBins {
		panic(fmt.Sprintf("transform: spline with %d bins, want 1…%d", bins, MaxBins))
	}
	if !(bound > 0 && bound <= MaxBound) {
		panic(fmt.Sprintf("transform: spline bound %v, want a value in (0, MaxBound = %g]", bound, MaxBound))
	}
	D, P = x.Cols, SplineParams(bins)
	if params.Rows != x.Rows || params.Cols != D*P {
		panic(fmt.Sprintf("transform: spline parameters %d×%d, want %d×%d for input %d×%d and %d bins",
			params.Rows, params.Cols, x.Rows, D*P, x.Rows, D, bins))
	}
	return D, P
}

// ForwardOne evaluates one spline (parameters u, s.Params() values) at x and returns y and
// log dy/dx; outside [−Bound, Bound] it is the identity.
func (s Spline) ForwardOne(x float64, u []float64) (y, logDet float64) {
	s.checkOne(u)
	if x < -s.Bound || x > s.Bound {
		return x, 0
	}
	var k knots
	k.set(u, s.Bound)
	return k.eval(x)
}

// InverseOne inverts ForwardOne: it returns x with ForwardOne(x) = y and log dx/dy. It
// carries no gradient.
func (s Spline) InverseOne(y float64, u []float64) (x, logDet float64) {
	s.checkOne(u)
	if y < -s.Bound || y > s.Bound {
		return y, 0
	}
	var k knots
	k.set(u, s.Bound)
	return k.inverse(y, true)
}

// checkOne panics unless u holds the parameters of one spline of s.
func (s Spline) checkOne(u []float64) {
	if s.Bins < 1 || s.Bins > MaxBins || len(u) != SplineParams(s.Bins) {
		panic(fmt.Sprintf("transform: spline of %d bins (want 1…%d) given %d parameters (want 3·bins − 1)", s.Bins, MaxBins, len(u)))
	}
}

// InverseColumn inverts n splines of one feature (see Univariate): for every i < n, the
// spline with parameters params[i·ps : i·ps+P] at y[i·stride], written to x[i·stride]; with
// logDet not nil it adds log dx/dy to logDet[i]. It is InverseOne for many points, four or
// eight splines at a time on the vector kernel where there is one, and otherwise with the
// exponentials and logarithms of blocks of splines taken by vector calls.
func (s Spline) InverseColumn(x, y []float64, stride, n int, params []float64, ps int, logDet []float64) {
	bins, bound := s.Bins, s.Bound
	if bins < 1 || bins > MaxBins {
		panic(fmt.Sprintf("transform: spline with %d bins, want 1…%d", bins, MaxBins))
	}
	P := SplineParams(bins)
	if (ps != 0 && ps != P) || len(params) < (n-1)*ps+P || (n > 0 && (len(y) <= (n-1)*stride || len(x) <= (n-1)*stride)) {
		panic(fmt.Sprintf("transform: Spline.InverseColumn: %d splines of %d parameters at stride %d (want %d or 0) need %d parameters and %d strided values; have %d, %d and %d",
			n, P, ps, P, (n-1)*ps+P, (n-1)*stride+1, len(params), len(y), len(x)))
	}
	mode := kernels.LanesInverse
	if logDet != nil {
		mode = kernels.LanesInverseLogDet
	}
	b := splineBlocks.Get()
	defer splineBlocks.Put(b)
	for i0 := 0; i0 < n; i0 += splineBlockLen {
		m := 0
		for i := i0; i < min(n, i0+splineBlockLen); i++ {
			if v := y[i*stride]; v < -bound || v > bound {
				x[i*stride] = v
				continue
			}
			b.us[m], b.at[m] = params[i*ps:i*ps+P], i
			m++
		}
		m = b.byLanes(m, bins, bound, mode, y, stride, func(i int, v, ld float64) {
			x[i*stride] = v
			if logDet != nil {
				logDet[i] += ld
			}
		})
		b.prepare(b.us[:m], bins)
		for t, i := range b.at[:m] {
			b.knots(&b.s, t, b.us[t], bound)
			xv, ld := b.s.inverse(y[i*stride], logDet != nil)
			x[i*stride] = xv
			if logDet != nil {
				logDet[i] += ld
			}
		}
	}
}

// setLaneConstants fills in the constants the vector spline kernel needs for splines of k
// bins on [−bound, bound] (the order is that of spline_amd64.h in package kernels).
func setLaneConstants(l *kernels.Lanes, k int, bound float64) {
	if l.Bins == k && l.Bound == bound {
		return
	}
	l.Bins, l.Bound = k, bound
	for i, v := range [...]float64{-bound, 2 * bound, bound, MinBinWidth, 1 - MinBinWidth*float64(k),
		MinBinHeight, 1 - MinBinHeight*float64(k), MinDerivative, 1, 2, math.MaxFloat64, 4, math.Copysign(0, -1),
		rootCancelTol} {
		for lane := range l.C[i] {
			l.C[i][lane] = v
		}
	}
}

// byLanes evaluates the block's m splines (b.us, b.at) in the given mode with the vector
// kernel, kernels.LaneCount at a time, at the points v[b.at[t]·stride], and calls put(b.at[t],
// result, log-derivative) for each. The splines of the groups the kernel declines (or all of
// them, where there is no kernel) are moved to the front of b.us and b.at; it returns their
// number, for the caller to evaluate on the scalar path. Both paths give the same bits.
func (b *splineBlock) byLanes(m, k int, bound float64, mode int, v []float64, stride int, put func(at int, r, ld float64)) int {
	width := kernels.LaneCount
	if width == 0 || k < 2 {
		return m
	}
	l := &b.lanes
	setLaneConstants(l, k, bound)
	p := 3*k - 1
	declined := 0
	for t0 := 0; t0 < m; t0 += width {
		n := min(width, m-t0)
		for lane := 0; lane < width; lane++ {
			t := t0 + min(lane, n-1) // a short group repeats its last spline
			l.Rows[lane] = &b.us[t][:p][0]
			l.V[lane] = v[b.at[t]*stride]
		}
		if !kernels.RunLanes(l, k, mode) {
			for t := t0; t < t0+n; t++ {
				b.us[declined], b.at[declined] = b.us[t], b.at[t]
				declined++
			}
			continue
		}
		for lane := 0; lane < n; lane++ {
			put(b.at[t0+lane], l.Out[0][lane], l.Out[1][lane])
		}
	}
	return declined
}
