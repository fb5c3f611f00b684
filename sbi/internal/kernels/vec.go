package kernels

import (
	"math"

	"github.com/gosbi/gosbi/sbi/internal/mathx"
)

// The reference loops of the vector kernels (vec_amd64.s runs the same operations four or
// eight values at a time).

// ReluGo sets y = 0 where y < 0 (NaN propagates).
func ReluGo(y []float64) {
	for i, x := range y {
		if 0 > x {
			y[i] = 0
		}
	}
}

// ReluBackGo sets g = gy·1[y > 0] for ReLU outputs y.
func ReluBackGo(y, gy, g []float64) {
	// g = gy where y > 0, else 0, without a branch (random signs defeat branch prediction)
	for i, v := range y {
		g[i] = math.Float64frombits(math.Float64bits(gy[i]) & positive(v))
	}
}

// positive returns all ones when v > 0 and zeros otherwise, without a branch: v > 0 exactly
// when its bits, as a signed integer b, satisfy 0 < b ≤ bits(+Inf).
func positive(v float64) uint64 {
	b := int64(math.Float64bits(v))
	return uint64((-b >> 63) & ((b - 0x7FF0000000000001) >> 63))
}

// TanhBackGo sets g = gy·(1 − y²) for tanh outputs y: the input's gradient, tanh' = 1 − tanh².
func TanhBackGo(y, gy, g []float64) {
	for i, v := range y {
		g[i] = gy[i] * float64(1-float64(v*v)) // each operation rounded, as the vector kernel
	}
}

// TanhBackAddGo adds gy·(1 − y²) to g for tanh outputs y.
func TanhBackAddGo(y, gy, g []float64) {
	for i, v := range y {
		g[i] += float64(gy[i] * float64(1-float64(v*v)))
	}
}

// ReluBackAddGo adds gy·1[y > 0] to g for ReLU outputs y (the mask of ReluBackGo).
func ReluBackAddGo(y, gy, g []float64) {
	for i, v := range y {
		g[i] += math.Float64frombits(math.Float64bits(gy[i]) & positive(v))
	}
}

// AdamGo applies Adam's update with c = {β₁, 1−β₁, β₂, 1−β₂, lr/bc₁, ε, √bc₂}.
func AdamGo(x, g, m, v []float64, c *[7]float64) {
	b1, c1, b2, c2, step, eps, sq2 := c[0], c[1], c[2], c[3], c[4], c[5], c[6]
	for i, gi := range g {
		mi := b1*m[i] + c1*gi
		vi := b2*v[i] + c2*gi*gi
		m[i], v[i] = mi, vi
		x[i] -= step * mi / (math.Sqrt(vi)/sq2 + eps)
	}
}

// ExpGo sets dst[i] = e^src[i] with ExpOne (dst and src may be the same slice).
func ExpGo(dst, src []float64) {
	for i, v := range src {
		dst[i] = ExpOne(v)
	}
}

// LogGo sets dst[i] = ln src[i] with LogOne (dst and src may be the same slice).
func LogGo(dst, src []float64) {
	for i, v := range src {
		dst[i] = LogOne(v)
	}
}

// EluGo sets dst[i] = scale·x for x > 0 and sa·(eˣ − 1) otherwise, for x = src[i], where sa is
// scale·alpha: ELU with scale 1 and alpha 1, SELU with the constants of Klambauer et al. (2017).
// dst and src may be the same slice. It computes, without branches,
//
//	scale·max(x, 0) + sa·(e^min(x,0) − 1),
//
// with the exponentials of a block from one vector call. Near 0, eˣ − 1 has an absolute error of
// a few 1e-16 (relative to sa) where math.Expm1 is exact to an ulp: that is below the rounding
// error of any preactivation a layer computes as a sum of products, so nothing is lost.
func EluGo(dst, src []float64, scale, sa float64) {
	if len(src) == 0 { // the AVX2 caller's empty tail: t below escapes, and would be allocated
		return
	}
	const block = 64
	var t [block]float64
	for lo := 0; lo < len(src); lo += block {
		s := src[lo:min(lo+block, len(src))]
		// min(x, 0) and max(x, 0) by the sign bit, without branches: x where the sign is set
		// (and 0 elsewhere), and the other way round; a NaN passes through one of the two.
		for i, x := range s {
			b := math.Float64bits(x)
			t[i] = math.Float64frombits(b & uint64(int64(b)>>63))
		}
		Exp(t[:len(s)], t[:len(s)])
		d := dst[lo : lo+len(s)]
		for i, x := range s {
			b := math.Float64bits(x)
			pos := math.Float64frombits(b &^ uint64(int64(b)>>63))
			d[i] = scale*pos + sa*(t[i]-1)
		}
	}
}

// EluBackGo sets g[i] = gy[i]·f'(x_i) for ELU-type outputs y = f(x): scale where y > 0, and
// y + sa (= sa·eˣ, sa = scale·alpha) elsewhere, selected by a bit mask (random signs defeat
// branch prediction).
func EluBackGo(y, gy, g []float64, scale, sa float64) {
	sb := math.Float64bits(scale)
	for i, v := range y {
		b := int64(math.Float64bits(v))
		pos := uint64((-b >> 63) & ((b - 0x7FF0000000000001) >> 63)) // all ones iff v > 0, as in ReluBackGo
		d := math.Float64frombits(sb&pos | math.Float64bits(v+sa)&^pos)
		g[i] = gy[i] * d
	}
}

// ExpOne is e^x computed with the operations of the vector kernel (to the bit) inside its range
// [−708, 708], and by math.Exp outside it.
func ExpOne(x float64) float64 {
	if !(x >= -708 && x <= 708) {
		return math.Exp(x)
	}
	const (
		log2e = 0x1.71547652b82fep+00
		ln2hi = 0x1.62e42fee00000p-01
		ln2lo = 0x1.a39ef35793c76p-33
	)
	k := math.RoundToEven(float64(x * log2e))
	r := math.FMA(-k, ln2hi, x)
	r = math.FMA(-k, ln2lo, r)
	p := expCoef[0]
	for _, c := range expCoef[1:] {
		p = math.FMA(p, r, c)
	}
	p = math.FMA(p, r, 1)
	return float64(p * math.Float64frombits(uint64(int64(k)+1023)<<52))
}

// expCoef are the Taylor coefficients 1/i! of the vector kernel's polynomial, i = 12…0.
var expCoef = [...]float64{1.0 / 479001600, 1.0 / 39916800, 1.0 / 3628800, 1.0 / 362880, 1.0 / 40320,
	1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 0.5, 1}

// LogOne is ln x computed with the operations of the vector kernel (to the bit) for normal, positive,
// finite x, and by mathx.Log otherwise (math.Log but for subnormal x, where math.Log on amd64 is
// wrong, golang/go#56600).
func LogOne(x float64) float64 {
	if !(x >= mathx.MinNormal && x <= math.MaxFloat64) {
		return mathx.Log(x)
	}
	const (
		ln2hi = 6.93147180369123816490e-01
		ln2lo = 1.90821492927058770002e-10
		l1    = 6.666666666666735130e-01
		l2    = 3.999999999940941908e-01
		l3    = 2.857142874366239149e-01
		l4    = 2.222219843214978396e-01
		l5    = 1.818357216161805012e-01
		l6    = 1.531383769920937332e-01
		l7    = 1.479819860511658591e-01
	)
	b := math.Float64bits(x)
	m := math.Float64frombits(b&(1<<52-1) | 0x3fe0000000000000) // x = m·2^(e−1022), m ∈ [½, 1)
	k := float64(int64(b>>52) - 1022)
	if m < math.Sqrt2/2 {
		m += m
		k--
	}
	f := m - 1
	s := f / (2 + f)
	s2 := float64(s * s)
	s4 := float64(s2 * s2)
	t1 := float64(s2 * math.FMA(math.FMA(math.FMA(l7, s4, l5), s4, l3), s4, l1))
	t2 := float64(s4 * math.FMA(math.FMA(l6, s4, l4), s4, l2))
	hfsq := float64(float64(f*f) * 0.5)
	t := math.FMA(s, hfsq+(t1+t2), float64(k*ln2lo))
	return float64(k*ln2hi) - ((hfsq - t) - f)
}

// ColSumAddGo adds the rows of src to dst in row order: for every column j < len(dst),
//
//	dst[j] += src[j] + src[stride + j] + … + src[(rows−1)·stride + j],
//
// one addition at a time from the first row (a bias's gradient: the sum over a batch of the
// output's gradient). src holds at least (rows−1)·stride + len(dst) values.
func ColSumAddGo(dst, src []float64, rows, stride int) {
	for r := 0; r < rows; r++ {
		row := src[r*stride : r*stride+len(dst)]
		for j, v := range row {
			dst[j] += v
		}
	}
}
