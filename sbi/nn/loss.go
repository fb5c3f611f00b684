package nn

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/gosbi/gosbi/sbi/internal/kernels"
)

// LogSumExp returns the n×1 column log Σ_j exp(a_ij) of an n×m tensor, computed stably by
// subtracting the row maximum. Its gradient is the row softmax, exp(a_ij − result) where the
// result is at most lseDirect (2²⁰) in magnitude and exp(a_ij − max)/Σ_k exp(a_ik − max)
// beyond, where the rounding of the result would be felt (at 1e17 it swallows log 2). A row
// of all −Inf gives −Inf and a zero gradient.
func (tp *Tape) LogSumExp(a *Tensor) *Tensor {
	g := tp.grads(a)
	out := tp.tensor(a.Rows, 1, g)
	for i := 0; i < a.Rows; i++ {
		out.Data[i] = logSumExp(a.Row(i))
	}
	if g {
		tp.record(backLogSumExp, out, a, nil, nil)
	}
	return out
}

// lseDirect is the largest magnitude of a log-sum-exp l for which LogSumExp's gradient and
// LogSoftmax take a − l directly: the rounding of l, at most 2⁻³³ there, is then below the
// other roundings of a training step. Beyond it they subtract the row's maximum and
// log Σ exp(a − max) one after the other.
const lseDirect = 1 << 20

func logSumExp(x []float64) float64 {
	m, s := maxExpSum(x)
	if math.IsInf(m, 0) {
		return m
	}
	return m + math.Log(s)
}

// maxExpSum returns the maximum m of x and Σ exp(x − m) (not computed, 0, if m is infinite).
func maxExpSum(x []float64) (m, s float64) {
	m = math.Inf(-1)
	for _, v := range x {
		m = max(m, v)
	}
	if math.IsInf(m, 0) {
		return m, 0
	}
	for _, v := range x {
		s += math.Exp(v - m)
	}
	return m, s
}

// lseLarge reports whether a finite log-sum-exp l is too large for a − l (see lseDirect).
func lseLarge(l float64) bool { return math.Abs(l) > lseDirect && !math.IsInf(l, 0) }

func backLogSumExp(n *node) {
	a, out := n.a, n.out
	for i := 0; i < a.Rows; i++ {
		g, l := out.Grad[i], out.Data[i]
		if math.IsInf(l, -1) {
			continue
		}
		ga := a.Grad[i*a.Cols : (i+1)*a.Cols]
		if lseLarge(l) {
			m, s := maxExpSum(a.Row(i))
			for j, v := range a.Row(i) {
				ga[j] += g * (math.Exp(v-m) / s)
			}
			continue
		}
		for j, v := range a.Row(i) {
			ga[j] += g * math.Exp(v-l)
		}
	}
}

// LogSoftmax returns a_ij − log Σ_k exp(a_ik), row by row: a_ij − l with l LogSumExp's
// value, or (a_ij − max) − log Σ_k exp(a_ik − max) where |l| exceeds lseDirect (2²⁰).
func (tp *Tape) LogSoftmax(a *Tensor) *Tensor {
	g := tp.grads(a)
	out := tp.tensor(a.Rows, a.Cols, g)
	for i := 0; i < a.Rows; i++ {
		x, y := a.Row(i), out.Row(i)
		m, s := maxExpSum(x)
		if math.IsInf(m, 0) {
			for j, v := range x {
				y[j] = v - m
			}
			continue
		}
		ls := math.Log(s)
		if l := m + ls; !lseLarge(l) {
			for j, v := range x {
				y[j] = v - l
			}
			continue
		}
		for j, v := range x {
			y[j] = (v - m) - ls
		}
	}
	if g {
		tp.record(backLogSoftmax, out, a, nil, nil)
	}
	return out
}

// backLogSoftmax: ∂L/∂a_j = g_j − softmax_j Σ_k g_k.
func backLogSoftmax(n *node) {
	a, out := n.a, n.out
	c := a.Cols
	for i := 0; i < a.Rows; i++ {
		gy := out.Grad[i*c : (i+1)*c]
		s := 0.0
		for _, g := range gy {
			s += g
		}
		ga := a.Grad[i*c : (i+1)*c]
		for j, y := range out.Data[i*c : (i+1)*c] {
			ga[j] += gy[j] - math.Exp(y)*s
		}
	}
}

// BCEWithLogits returns the 1×1 mean binary cross-entropy between the logits and targets in
// [0, 1] (same shape): mean of softplus(l) − t·l, which is −t·log σ(l) − (1−t)·log(1−σ(l))
// computed without overflow, also where logits near the largest float64 make the sum of the
// terms overflow (see bceMeanScaled). Targets get no gradient. A target outside [0, 1], or
// NaN, is misuse, as a shape mismatch is: BCEWithLogits panics with a message naming the
// target and its place before anything is recorded, instead of returning a loss that is no
// cross-entropy.
func (tp *Tape) BCEWithLogits(logits, targets *Tensor) *Tensor {
	sameShape("BCEWithLogits", logits, targets)
	if logits.Len() == 0 {
		panic("nn: BCEWithLogits of an empty batch")
	}
	checkTargets(targets)
	g := tp.grads(logits)
	out := tp.tensor(1, 1, g)
	s := 0.0
	for i, l := range logits.Data {
		s += kernels.Softplus(l) - targets.Data[i]*l
	}
	out.Data[0] = s / float64(logits.Len())
	if math.IsInf(s, 1) {
		out.Data[0] = bceMeanScaled(logits.Data, targets.Data)
	}
	if g {
		tp.record(backBCE, out, logits, targets, nil)
	}
	return out
}

// checkTargets panics, naming the first offender, if a target is outside [0, 1] or NaN. It is
// one comparison per element against the loss's exponential and logarithm per element.
func checkTargets(targets *Tensor) {
	for i, t := range targets.Data {
		if !(t >= 0 && t <= 1) {
			panic(fmt.Sprintf("nn: BCEWithLogits: target %v at row %d, column %d, want a value in [0, 1] "+
				"(a label 0 or 1, or a probability)", t, i/targets.Cols, i%targets.Cols))
		}
	}
}

// bceMeanScaled returns the mean of softplus(l) − t·l where the sum of the terms overflowed
// but the terms may be finite (logits beyond about 1e308/n): each term is divided by 2^e > n
// before it is added (exactly, but for terms below 2⁻¹⁰²²·2^e, which the sum does not feel),
// so that the sum cannot overflow, and the mean is that sum divided by n, times 2^e. An
// infinite term still gives +Inf.
func bceMeanScaled(logits, targets []float64) float64 {
	n := len(logits)
	e := bits.Len(uint(n))
	s := 0.0
	for i, l := range logits {
		s += math.Ldexp(kernels.Softplus(l)-targets[i]*l, -e)
	}
	return math.Ldexp(s/float64(n), e)
}

// backBCE: ∂/∂l = (σ(l) − t)/n.
func backBCE(n *node) {
	l, t := n.a, n.b
	g := n.out.Grad[0] / float64(l.Len())
	for i, v := range l.Data {
		l.Grad[i] += g * (kernels.Sigmoid(v) - t.Data[i])
	}
}

// Indicator returns the straight-through indicator 1[a > 0] elementwise: the forward value is
// the step function and the backward pass lets the gradient through unchanged (Bengio et al.
// 2013), restricted to |a| ≤ window when window > 0 (the "hardtanh" window variant; window 0
// passes every gradient).
func (tp *Tape) Indicator(a *Tensor, window float64) *Tensor {
	if window < 0 || math.IsNaN(window) {
		panic(fmt.Sprintf("nn: Indicator window %v, want ≥ 0", window))
	}
	g := tp.grads(a)
	out := tp.tensor(a.Rows, a.Cols, g)
	for i, v := range a.Data {
		if v > 0 {
			out.Data[i] = 1
		} else {
			out.Data[i] = 0
		}
	}
	if g {
		tp.record(backIndicator, out, a, nil, nil).k = window
	}
	return out
}

func backIndicator(n *node) {
	w := n.k
	for i, g := range n.out.Grad {
		if w == 0 || math.Abs(n.a.Data[i]) <= w {
			n.a.Grad[i] += g
		}
	}
}

// DensityIndicator returns the n×L indicators 1[q*ᵢ > qᵢⱼ] of log densities lpStar (n×1,
// log q*ᵢ) and lp (n×L, log qᵢⱼ), with the straight-through backward pass that the coverage
// regularizer's reference code (Falkiewicz et al. 2023) applies in density space: the
// indicator is taken of dᵢⱼ = q*ᵢ − qᵢⱼ, its incoming gradient g is clipped to [−1, 1]
// (hardtanh of the gradient) and passed to dᵢⱼ, and the chain rule through q = exp(log q)
// gives
//
//	∂/∂log q*ᵢ += clip(gᵢⱼ)·q*ᵢ,   ∂/∂log qᵢⱼ −= clip(gᵢⱼ)·qᵢⱼ.
//
// The forward value compares the log densities, so it is exact where both densities
// underflow; the gradient of such a pair is 0, as in density space.
func (tp *Tape) DensityIndicator(lpStar, lp *Tensor) *Tensor {
	if lpStar.Cols != 1 || lpStar.Rows != lp.Rows {
		panic(fmt.Sprintf("nn: DensityIndicator of %d×%d and %d×%d, want n×1 and n×L", lpStar.Rows, lpStar.Cols, lp.Rows, lp.Cols))
	}
	g := tp.grads(lpStar, lp)
	out := tp.tensor(lp.Rows, lp.Cols, g)
	for i := 0; i < lp.Rows; i++ {
		s := lpStar.Data[i]
		for j := 0; j < lp.Cols; j++ {
			k := i*lp.Cols + j
			if s > lp.Data[k] {
				out.Data[k] = 1
			} else {
				out.Data[k] = 0
			}
		}
	}
	if g {
		tp.record(backDensityIndicator, out, lpStar, lp, nil)
	}
	return out
}

func backDensityIndicator(n *node) {
	star, lp := n.a, n.b
	L := lp.Cols
	for i := 0; i < lp.Rows; i++ {
		qs := math.Exp(star.Data[i])
		for j := 0; j < L; j++ {
			k := i*L + j
			c := max(-1, min(1, n.out.Grad[k]))
			if c == 0 {
				continue
			}
			if star.Grad != nil {
				star.Grad[i] += c * qs
			}
			if lp.Grad != nil {
				lp.Grad[k] -= c * math.Exp(lp.Data[k])
			}
		}
	}
}
