package nn

import "math"

// Portable versions of the vector kernels; vec_amd64.go runs assembly versions of the same
// operations where the CPU allows.

// reluGo sets y = 0 where y < 0 (NaN propagates).
func reluGo(y []float64) {
	for i, x := range y {
		y[i] = relu(x)
	}
}

// reluBackGo sets g = gy·1[y > 0] for ReLU outputs y.
func reluBackGo(y, gy, g []float64) {
	// g = gy where y > 0, else 0, without a branch (random signs defeat branch prediction):
	// y > 0 exactly when its bits, as a signed integer b, satisfy 0 < b ≤ bits(+Inf)
	for i, v := range y {
		b := int64(math.Float64bits(v))
		mask := uint64((-b >> 63) & ((b - 0x7FF0000000000001) >> 63))
		g[i] = math.Float64frombits(math.Float64bits(gy[i]) & mask)
	}
}

// adamGo applies Adam's update with c = {β₁, 1−β₁, β₂, 1−β₂, lr/bc₁, ε, √bc₂}.
func adamGo(x, g, m, v []float64, c *[7]float64) {
	b1, c1, b2, c2, step, eps, sq2 := c[0], c[1], c[2], c[3], c[4], c[5], c[6]
	for i, gi := range g {
		mi := b1*m[i] + c1*gi
		vi := b2*v[i] + c2*gi*gi
		m[i], v[i] = mi, vi
		x[i] -= step * mi / (math.Sqrt(vi)/sq2 + eps)
	}
}

// expGo sets dst[i] = e^src[i].
func expGo(dst, src []float64) {
	for i, v := range src {
		dst[i] = math.Exp(v)
	}
}

// logGo sets dst[i] = ln src[i].
func logGo(dst, src []float64) {
	for i, v := range src {
		dst[i] = math.Log(v)
	}
}

// tanhVec sets dst[i] = tanh(src[i]) (dst and src may be the same slice), with the
// exponentials of a block computed by one vector call:
//
//	tanh x = sign(x)·(1 − t)/(1 + t),  t = e^−2|x|,  for |x| ≥ 0.625,
//
// and below 0.625, where 1 − t would cancel, x + x·z·P(z)/Q(z) with z = x², the rational
// approximation that math.Tanh uses there (Cephes). Both agree with math.Tanh to a few ulps.
func tanhVec(dst, src []float64) {
	const block = 64
	var t [block]float64
	for lo := 0; lo < len(src); lo += block {
		s := src[lo:min(lo+block, len(src))]
		for i, x := range s {
			t[i] = -2 * min(math.Abs(x), 22) // tanh(22) rounds to 1; NaN stays NaN
		}
		expVec(t[:len(s)], t[:len(s)])
		d := dst[lo : lo+len(s)]
		for i, x := range s {
			a := math.Abs(x)
			if a < 0.625 {
				d[i] = tanhSmall(x)
				continue
			}
			y := (1 - t[i]) / (1 + t[i])
			if x < 0 {
				y = -y
			}
			d[i] = y
		}
	}
}

// tanhSmall is tanh(x) for |x| < 0.625: x + x·z·P(z)/Q(z), z = x² (Cephes' coefficients).
func tanhSmall(x float64) float64 {
	const (
		p0 = -9.64399179425052238628e-1
		p1 = -9.92877231001918586564e1
		p2 = -1.61468768441708447952e3
		q0 = 1.12811678491632931402e2
		q1 = 2.23548839060100448583e3
		q2 = 4.84406305325125486048e3
	)
	z := x * x
	return x + x*(z*((p0*z+p1)*z+p2)/(((z+q0)*z+q1)*z+q2))
}

// eluGo sets dst[i] = scale·x for x > 0 and sa·(eˣ − 1) otherwise, for x = src[i], where sa is
// scale·alpha: ELU with scale 1 and alpha 1, SELU with the constants of Klambauer et al. (2017).
// dst and src may be the same slice. It computes, without branches,
//
//	scale·max(x, 0) + sa·(e^min(x,0) − 1),
//
// with the exponentials of a block from one vector call. Near 0, eˣ − 1 has an absolute error of
// a few 1e-16 (relative to sa) where math.Expm1 is exact to an ulp: that is below the rounding
// error of any preactivation a layer computes as a sum of products, so nothing is lost.
func eluGo(dst, src []float64, scale, sa float64) {
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
		expVec(t[:len(s)], t[:len(s)])
		d := dst[lo : lo+len(s)]
		for i, x := range s {
			b := math.Float64bits(x)
			pos := math.Float64frombits(b &^ uint64(int64(b)>>63))
			d[i] = scale*pos + sa*(t[i]-1)
		}
	}
}

// eluBackGo sets g[i] = gy[i]·f'(x_i) for ELU-type outputs y = f(x): scale where y > 0, and
// y + sa (= sa·eˣ, sa = scale·alpha) elsewhere, selected by a bit mask (random signs defeat
// branch prediction).
func eluBackGo(y, gy, g []float64, scale, sa float64) {
	sb := math.Float64bits(scale)
	for i, v := range y {
		b := int64(math.Float64bits(v))
		pos := uint64((-b >> 63) & ((b - 0x7FF0000000000001) >> 63)) // all ones iff v > 0, as in reluBackGo
		d := math.Float64frombits(sb&pos | math.Float64bits(v+sa)&^pos)
		g[i] = gy[i] * d
	}
}
