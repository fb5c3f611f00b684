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
