package transform

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRQSplineEdgeStaysInBin: where δ_k + δ_{k+1} overflows (δ_k the largest float64, δ_{k+1}
// just large enough) the value is y_k + h_k·r with r = num/den within a few ulps of 1; it must
// stay in the bin [y_k, y_{k+1}] and inside [−B, B], however y_k + h_k rounds. Before, it
// landed an ulp past y_{k+1}, and was NaN where ξ rounded to 1 (∞·0 in the denominator).
func TestRQSplineEdgeStaysInBin(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	bad := 0
	for trial := 0; trial < 2000; trial++ {
		const bins = 3
		B := []float64{1, 3, 5, 1e10}[trial%4]
		u := randSplineParams(rng, 1, 2, bins)
		u[2*bins] = math.MaxFloat64
		u[2*bins+1] = 1e292 * (1 + 4*rng.Float64())
		s := Spline{Bins: bins, Bound: B}
		var k knots
		k.set(u, B)
		for i := 0; i < 50; i++ {
			x := k.cw[1] + (k.cw[2]-k.cw[1])*(1-math.Pow(2, -60*rng.Float64()))
			if x >= k.cw[2] {
				continue
			}
			y, _ := s.ForwardOne(x, u)
			if !(y >= k.ch[1] && y <= k.ch[2] && y <= B) && bad < 5 {
				bad++
				t.Errorf("bound %g, x = %v in [%v, %v): y = %v, outside the bin [%v, %v]", B, x, k.cw[1], k.cw[2], y, k.ch[1], k.ch[2])
			}
		}
	}
}
