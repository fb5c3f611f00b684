package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMatMulMatchesLoops checks the BLAS path of the build (gonum or OpenBLAS) against a
// triple loop, on sizes that are not multiples of any block size. Both sum the same 41
// products, so they agree to a few ulps of the largest partial sum (bound 1e-12 here).
func TestMatMulMatchesLoops(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	m, k, n := 37, 41, 29
	a, b := randConst(rng, m, k, -1, 1), randConst(rng, k, n, -1, 1)
	tp := NewTape()
	c := tp.MatMul(a, b)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for l := 0; l < k; l++ {
				s += a.At(i, l) * b.At(l, j)
			}
			if d := math.Abs(c.At(i, j) - s); d > 1e-12 {
				t.Fatalf("%s backend: C[%d,%d] = %v, loops give %v", Backend(), i, j, c.At(i, j), s)
			}
		}
	}
}
