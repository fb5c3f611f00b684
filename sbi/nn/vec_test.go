package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestVectorKernels checks the vector kernels of the build (assembly where the CPU allows)
// against the portable Go loops, element for element, on lengths that are not multiples of
// the vector width. The operations are the same IEEE operations in the same order, so the
// results must be equal (zeros compared by value).
func TestVectorKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(50, 51))
	for _, n := range []int{0, 1, 3, 4, 7, 64, 129} {
		y := make([]float64, n)
		gy := make([]float64, n)
		for i := range y {
			y[i], gy[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		if n > 2 {
			y[0], y[1] = math.Copysign(0, -1), 0
		}
		want, got := append([]float64(nil), y...), append([]float64(nil), y...)
		reluGo(want)
		reluVec(got)
		same(t, "relu", want, got)

		gw, gg := make([]float64, n), make([]float64, n)
		reluBackGo(want, gy, gw)
		reluBackVec(want, gy, gg)
		same(t, "relu backward", gw, gg)

		c := [7]float64{0.9, 0.1, 0.999, 0.001, 0.01, 1e-8, 0.03}
		x1, x2 := append([]float64(nil), y...), append([]float64(nil), y...)
		m1, m2 := append([]float64(nil), gy...), append([]float64(nil), gy...)
		v1 := make([]float64, n)
		for i := range v1 {
			v1[i] = rng.Float64()
		}
		v2 := append([]float64(nil), v1...)
		adamGo(x1, gy, m1, v1, &c)
		adamVec(x2, gy, m2, v2, &c)
		same(t, "adam θ", x1, x2)
		same(t, "adam m", m1, m2)
		same(t, "adam v", v1, v2)
	}
}

func same(t *testing.T, name string, a, b []float64) {
	t.Helper()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("%s (n=%d) differs at %d: %v and %v", name, len(a), i, a[i], b[i])
		}
	}
}
