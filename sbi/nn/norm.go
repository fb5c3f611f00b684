package nn

import (
	"fmt"
	"math"
)

// LayerNorm normalizes every group of size consecutive values of each row of x (Ba et al.
// 2016, eq. 4): with μ and σ² the mean and (biased) variance of the group,
//
//	y = (x − μ)/√(σ² + eps) · gain + bias,
//
// gain and bias being 1×size (nil for 1 and 0). size = x.Cols normalizes whole rows; on
// channels-last series of c channels, size = c normalizes each position over its channels, as
// a transformer does. The gradient (with ĝ = dy·gain, x̂ the normalized value, r = 1/√(σ² + eps)
// and means over the group) is dx = r·(ĝ − mean ĝ − x̂·mean(ĝ·x̂)). A group of any finite
// values is normalized: where Σ(x − μ)² would overflow float64 (values beyond about 1e154),
// the group is first scaled by a power of two, which is exact.
func (tp *Tape) LayerNorm(x, gain, bias *Tensor, size int, eps float64) *Tensor {
	if size < 1 || x.Cols%size != 0 {
		panic(fmt.Sprintf("nn: LayerNorm: groups of %d values in rows of %d, want a divisor of the columns", size, x.Cols))
	}
	if !(eps > 0) || math.IsInf(eps, 0) {
		panic(fmt.Sprintf("nn: LayerNorm: eps = %v, want a finite value > 0 (PyTorch uses 1e-5)", eps))
	}
	for _, p := range []*Tensor{gain, bias} {
		if p != nil && (p.Rows != 1 || p.Cols != size) {
			panic(fmt.Sprintf("nn: LayerNorm: gain or bias %d×%d, want 1×%d", p.Rows, p.Cols, size))
		}
	}
	gr := tp.grads(x, gain, bias)
	out := tp.tensor(x.Rows, x.Cols, gr)
	groups := x.Len() / size
	xhat := out.Data
	var rs []float64
	if gr {
		xhat, rs = tp.scratch(x.Len()), tp.scratch(groups)
	}
	inv := 1 / float64(size)
	for k := 0; k < groups; k++ {
		xs, xh := x.Data[k*size:(k+1)*size], xhat[k*size:(k+1)*size]
		r := normalizeGroup(xh, xs, inv, eps)
		if rs != nil {
			rs[k] = r
		}
		y := out.Data[k*size : (k+1)*size]
		for j, v := range xh {
			if gain != nil {
				v *= gain.Data[j]
			}
			if bias != nil {
				v += bias.Data[j]
			}
			y[j] = v
		}
	}
	if gr {
		nd := tp.record(backLayerNorm, out, x, gain, bias)
		nd.s, nd.s2, nd.i = xhat, rs, size
	}
	return out
}

// normalizeGroup sets xh to (x − μ)·r for the group xs and returns r = 1/√(σ² + eps), inv
// being 1/len(xs). A group whose Σ(x − μ)² overflows (values beyond about 1e154, or a mean
// beyond 1e308) goes to normalizeGroupScaled; the others never do, and keep these formulas.
func normalizeGroup(xh, xs []float64, inv, eps float64) float64 {
	mu := 0.0
	for _, v := range xs {
		mu += v
	}
	mu *= inv
	s2 := 0.0
	for _, v := range xs {
		d := v - mu
		s2 += d * d
	}
	if math.IsInf(s2, 1) {
		if r, ok := normalizeGroupScaled(xh, xs, inv, eps); ok {
			return r
		}
	}
	r := 1 / math.Sqrt(s2*inv+eps)
	for j, v := range xs {
		xh[j] = (v - mu) * r
	}
	return r
}

// normalizeGroupScaled is normalizeGroup for a group whose Σ(x − μ)² overflows: the values are
// multiplied by 2^−e, e the exponent of the largest |x| (exact for values within 2^1022 of the
// group's largest, smaller ones may round into subnormals, harmlessly; at most 1 in magnitude
// after), normalized with eps·2^−2e, and r is the scaled group's r times 2^−e. It reports
// false, and leaves xh, when a value is NaN or infinite.
func normalizeGroupScaled(xh, xs []float64, inv, eps float64) (float64, bool) {
	big := 0.0
	for _, v := range xs {
		big = max(big, math.Abs(v))
	}
	if !(big <= math.MaxFloat64) {
		return 0, false
	}
	_, e := math.Frexp(big)
	mu := 0.0
	for _, v := range xs {
		mu += math.Ldexp(v, -e)
	}
	mu *= inv
	s2 := 0.0
	for _, v := range xs {
		d := math.Ldexp(v, -e) - mu
		s2 += d * d
	}
	r := 1 / math.Sqrt(s2*inv+math.Ldexp(eps, -2*e))
	for j, v := range xs {
		xh[j] = (math.Ldexp(v, -e) - mu) * r
	}
	return math.Ldexp(r, -e), true
}

func backLayerNorm(nd *node) {
	x, gain, bias, out := nd.a, nd.b, nd.c, nd.out
	size := nd.i
	inv := 1 / float64(size)
	for k, r := range nd.s2 {
		gy, xh := out.Grad[k*size:(k+1)*size], nd.s[k*size:(k+1)*size]
		if gain != nil && gain.Grad != nil {
			for j, v := range gy {
				gain.Grad[j] += v * xh[j]
			}
		}
		if bias != nil && bias.Grad != nil {
			for j, v := range gy {
				bias.Grad[j] += v
			}
		}
		if x.Grad == nil {
			continue
		}
		var m1, m2 float64
		for j, v := range gy {
			if gain != nil {
				v *= gain.Data[j]
			}
			m1 += v
			m2 += v * xh[j]
		}
		m1 *= inv
		m2 *= inv
		gx := x.Grad[k*size : (k+1)*size]
		for j, v := range gy {
			if gain != nil {
				v *= gain.Data[j]
			}
			gx[j] += r * (v - m1 - xh[j]*m2)
		}
	}
}
