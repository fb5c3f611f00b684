//go:build amd64 && !noasm

package nn

import "math"

//go:noescape
func reluAVX(y []float64)

//go:noescape
func reluBackAVX(y, gy, g []float64)

//go:noescape
func expAVX2(dst, src []float64) int

//go:noescape
func logAVX2(dst, src []float64) int

//go:noescape
func eluAVX2(dst, src []float64, c *[2]float64)

//go:noescape
func eluBackAVX(y, gy, g []float64, c *[2]float64)

//go:noescape
func adamAVX(x, g, m, v []float64, c *[7]float64)

func reluVec(y []float64) {
	n := 0
	if hasAVX2 {
		n = len(y) &^ 3
		reluAVX(y[:n])
	}
	reluGo(y[n:])
}

func reluBackVec(y, gy, g []float64) {
	n := 0
	if hasAVX2 {
		n = len(y) &^ 3
		reluBackAVX(y[:n], gy[:n], g[:n])
	}
	reluBackGo(y[n:], gy[n:], g[n:])
}

func adamVec(x, g, m, v []float64, c *[7]float64) {
	n := 0
	if hasAVX2 {
		n = len(x) &^ 3
		adamAVX(x[:n], g[:n], m[:n], v[:n], c)
	}
	adamGo(x[n:], g[n:], m[n:], v[n:], c)
}

// expVec sets dst[i] = e^src[i] (dst and src may be the same slice). Every value gets the
// same bits wherever it lies in src: the values the vector kernel leaves (a group outside its
// range, the last len%4) are computed one at a time by expOne, its scalar twin.
func expVec(dst, src []float64) {
	if !hasAVX2 {
		expGo(dst, src)
		return
	}
	withScalarTwin(dst, src, expAVX2, expOne)
}

// withScalarTwin runs a vector kernel that stops before the first group of four outside its
// range (returning the number of values done), and computes those groups and the last len%4
// values one at a time with its scalar twin.
func withScalarTwin(dst, src []float64, kernel func(dst, src []float64) int, one func(float64) float64) {
	i := 0
	for len(src)-i >= 4 {
		i += kernel(dst[i:], src[i:len(src)&^3])
		if len(src)-i < 4 {
			break
		}
		for _, v := range src[i : i+4] { // a group outside the kernel's range
			dst[i] = one(v)
			i++
		}
	}
	for ; i < len(src); i++ {
		dst[i] = one(src[i])
	}
}

// expOne is e^x computed with the operations of expAVX2 (to the bit) inside its range
// [−708, 708], and by math.Exp outside it.
func expOne(x float64) float64 {
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

// expCoef are the Taylor coefficients 1/i! of expAVX2's polynomial, i = 12…0.
var expCoef = [...]float64{1.0 / 479001600, 1.0 / 39916800, 1.0 / 3628800, 1.0 / 362880, 1.0 / 40320,
	1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 0.5, 1}

// eluVec sets dst[i] = scale·x for x > 0 and sa·(eˣ − 1) otherwise (see eluGo).
func eluVec(dst, src []float64, scale, sa float64) {
	n := 0
	if hasAVX2 {
		n = len(src) &^ 3
		eluAVX2(dst[:n], src[:n], &[2]float64{scale, sa})
	}
	eluGo(dst[n:], src[n:], scale, sa)
}

// eluBack sets g[i] = gy[i]·f'(x_i) for ELU-type outputs y (see eluBackGo).
func eluBack(y, gy, g []float64, scale, sa float64) {
	n := 0
	if hasAVX2 {
		n = len(y) &^ 3
		eluBackAVX(y[:n], gy[:n], g[:n], &[2]float64{scale, sa})
	}
	eluBackGo(y[n:], gy[n:], g[n:], scale, sa)
}

// logVec sets dst[i] = ln src[i] (dst and src may be the same slice), every value with the
// same bits wherever it lies in src (as expVec, with logOne).
func logVec(dst, src []float64) {
	if !hasAVX2 {
		logGo(dst, src)
		return
	}
	withScalarTwin(dst, src, logAVX2, logOne)
}

// logOne is ln x computed with the operations of logAVX2 (to the bit) for normal, positive,
// finite x, and by math.Log otherwise.
func logOne(x float64) float64 {
	if !(x >= 0x1p-1022 && x <= math.MaxFloat64) {
		return math.Log(x)
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

//go:noescape
func rqsLanesAVX2(l *splineLanes, k, mode int) bool

//go:noescape
func rqsLanesAVX512(l *splineLanes, k, mode int) bool

// splineLaneCount is the number of splines the vector spline kernel in use evaluates at once:
// 8 with AVX-512 (spline512_amd64.s), 4 with AVX2 (spline_amd64.s), 0 without either.
var splineLaneCount = splineLanesFor(hasAVX2, hasAVX512)

func splineLanesFor(avx2, avx512 bool) int {
	switch {
	case avx512:
		return 8
	case avx2:
		return 4
	}
	return 0
}

// splineKernel runs the vector spline kernel of splineLaneCount lanes.
func splineKernel(l *splineLanes, k, mode int) bool {
	if splineLaneCount == 8 {
		return rqsLanesAVX512(l, k, mode)
	}
	return rqsLanesAVX2(l, k, mode)
}
