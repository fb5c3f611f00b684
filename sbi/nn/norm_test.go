package nn

import (
	"fmt"
	"math"
	"testing"
)

// layerNormDirect is LayerNorm's formula on one group, y = (x − μ)·r with r = 1/√(σ² + eps),
// and its gradient r·(dy − mean dy − y·mean(dy·y)) (no gain or bias), taken the direct way.
func layerNormDirect(x, dy []float64, eps float64) (y, dx []float64) {
	inv := 1 / float64(len(x))
	mu := 0.0
	for _, v := range x {
		mu += v
	}
	mu *= inv
	s2 := 0.0
	for _, v := range x {
		s2 += (v - mu) * (v - mu)
	}
	r := 1 / math.Sqrt(s2*inv+eps)
	var m1, m2 float64
	for j, v := range x {
		y = append(y, (v-mu)*r)
		m1 += dy[j]
		m2 += dy[j] * y[j]
	}
	m1 *= inv
	m2 *= inv
	for j, g := range dy {
		dx = append(dx, r*(g-m1-y[j]*m2))
	}
	return y, dx
}

// TestLayerNormHugeRows checks groups whose squared deviations overflow float64 (beyond
// about 1e154) or whose sum does (values near 1e308): σ² then came out +Inf and the output 0,
// or the mean +Inf and the output NaN. LayerNorm is scale-invariant up to eps, so the
// output must be that of the group scaled by an exact power of two to ordinary size, and
// the gradient that group's divided by the same power.
func TestLayerNormHugeRows(t *testing.T) {
	groups := [][]float64{
		{1e155, -1e155, 2e155, 0},
		{3e200, 3e200, -1e200, 5},
		{-1e307, 4e306, 1e300, 1.7e308},
		{1.5e308, 1.5e308, 1e308, -1e308},
		{math.MaxFloat64, math.MaxFloat64, math.MaxFloat64, -math.MaxFloat64},
	}
	dy := []float64{1, -2, 0.5, 4}
	for _, x := range groups {
		t.Run(fmt.Sprint(x), func(t *testing.T) {
			_, k := math.Frexp(x[0])
			z := make([]float64, len(x))
			for j, v := range x {
				z[j] = math.Ldexp(v, -k)
			}
			wantY, wantDx := layerNormDirect(z, dy, 1e-300)
			tp := NewTape()
			xv := tp.Variable(1, len(x), x)
			y := tp.LayerNorm(xv, nil, nil, len(x), LayerNormEps)
			tp.BackwardWith(y, dy)
			for j := range x {
				if d := math.Abs(y.Data[j] - wantY[j]); !(d <= 1e-14) {
					t.Errorf("output %d is %v, want %v", j, y.Data[j], wantY[j])
				}
				want := math.Ldexp(wantDx[j], -k)
				// the gradient is about 2^−k, subnormal where k > 1022: a few of its ulps more
				if d := math.Abs(xv.Grad[j] - want); !(d <= math.Ldexp(1e-13, -k)+4*math.SmallestNonzeroFloat64) {
					t.Errorf("gradient %d is %v, want %v", j, xv.Grad[j], want)
				}
			}
		})
	}
}

// TestLayerNormOrdinaryBits checks that groups whose variance is finite keep the direct
// formulas bit for bit (saved runs stay valid), down to constant groups and values of 1e-300
// and up to 1e150.
func TestLayerNormOrdinaryBits(t *testing.T) {
	groups := [][]float64{
		{0.3, -2.5, 7.25, 1},
		{1e150, -1e150, 2e150, 3},
		{1e-300, -2e-300, 0, 5e-301},
		{4, 4, 4, 4},
		{-1e300, -1e300, -1e300, -1e300},
		{1e5, 1e5 + 1, 1e5 - 3, 1e5},
	}
	dy := []float64{1, -2, 0.5, 4}
	for _, x := range groups {
		wantY, wantDx := layerNormDirect(x, dy, LayerNormEps)
		tp := NewTape()
		xv := tp.Variable(1, len(x), x)
		y := tp.LayerNorm(xv, nil, nil, len(x), LayerNormEps)
		tp.BackwardWith(y, dy)
		for j := range x {
			if y.Data[j] != wantY[j] || xv.Grad[j] != wantDx[j] {
				t.Errorf("group %v, element %d: output %v and gradient %v, want %v and %v", x, j, y.Data[j], xv.Grad[j], wantY[j], wantDx[j])
			}
		}
	}
}
