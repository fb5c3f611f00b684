package transform

import (
	"fmt"
	"math"
	"testing"

	"github.com/gosbi/gosbi/sbi/nn"
)

// edgeDerivatives are knot derivatives D around and beyond the overflow of the spline's
// (s + (δ_k + δ_{k+1} − 2s)ξ(1−ξ))² at about 1e154, up to where δ_k + δ_{k+1} overflows.
var edgeDerivatives = []float64{1e150, 2e154, 1e155, 1e200, 1e300, math.MaxFloat64}

// TestRQSplineHugeDerivativeClosedForm checks the spline's value and log-derivative where an
// interior knot derivative D = m_δ + softplus(u) is huge, against closed forms. With two bins
// of equal parameters, s = 1 in both; in the bin [x_0, x_1], δ_0 = 1 and δ_1 = D, so that
// dy/dx = (Dξ² + 1 − ξ²)/(Dξ(1−ξ) + 1 − ξ(1−ξ))², which is 1/(D(1−ξ)²) to a relative
// 1/(Dξ(1−ξ)); in [x_1, x_2] it is 1/(Dξ²). With three bins and both interior derivatives D,
// the middle bin has dy/dx ≈ (1 − 2t)/(D·4t²) and y ≈ y_1 + h_1/2 (t = ξ(1−ξ)). Before, the
// square of the denominator overflowed beyond about 1e154: the log-determinant was −Inf, and
// where δ_1 + δ_2 overflowed the value was y_1.
func TestRQSplineHugeDerivativeClosedForm(t *testing.T) {
	const B = 3.0
	for _, D := range edgeDerivatives {
		for _, xi := range []float64{0.5, 0.25, 0.9} {
			cases := []struct {
				name string
				u    []float64
				bin  int
				logD func(xi float64) float64
				y    func(yk, hk, xi float64) float64
			}{
				{"2 bins, first", []float64{0, 0, 0, 0, D}, 0,
					func(xi float64) float64 { return -math.Log(D) - 2*math.Log1p(-xi) },
					func(yk, hk, xi float64) float64 { return yk + hk/(D*(1-xi)) }},
				{"2 bins, second", []float64{0, 0, 0, 0, D}, 1,
					func(xi float64) float64 { return -math.Log(D) - 2*math.Log(xi) },
					func(yk, hk, xi float64) float64 { return yk + hk - hk/(D*xi) }},
				{"3 bins, middle", []float64{0, 0, 0, 0, 0, 0, D, D}, 1,
					func(xi float64) float64 {
						t := xi * (1 - xi)
						return -math.Log(D) + math.Log1p(-2*t) - 2*math.Log(2*t)
					},
					func(yk, hk, xi float64) float64 { return yk + hk/2 }},
			}
			for _, c := range cases {
				t.Run(fmt.Sprintf("%s/D=%g/ξ=%v", c.name, D, xi), func(t *testing.T) {
					s := Spline{Bins: (len(c.u) + 1) / 3, Bound: B}
					var k knots
					k.set(c.u, B)
					xk, wk := k.cw[c.bin], k.cw[c.bin+1]-k.cw[c.bin]
					yk, hk := k.ch[c.bin], k.ch[c.bin+1]-k.ch[c.bin]
					x := xk + xi*wk
					xi := (x - xk) / wk // as the spline computes it
					y, ld := s.ForwardOne(x, c.u)
					if want := c.logD(xi); !(math.Abs(ld-want) <= 1e-14*math.Abs(want)) {
						t.Errorf("log dy/dx = %v, want %v", ld, want)
					}
					if want := c.y(yk, hk, xi); !(math.Abs(y-want) <= 4e-16*B) {
						t.Errorf("y = %v, want %v", y, want)
					}
					// the tape's Forward, with and without gradients, agrees
					for _, noGrad := range []bool{false, true} {
						tp := nn.NewTape()
						tp.NoGrad = noGrad
						yt, ldt := s.Forward(tp, nn.NewVariable(1, 1, []float64{x}), nn.NewVariable(1, len(c.u), append([]float64(nil), c.u...)))
						if yt.Data[0] != y || math.Abs(ldt.Data[0]-ld) > 1e-14*math.Abs(ld) {
							t.Errorf("Forward (no gradient %v) gives y = %v, log-det %v; ForwardOne %v, %v", noGrad, yt.Data[0], ldt.Data[0], y, ld)
						}
					}
				})
			}
		}
	}
}

// TestRQSplineHugeDerivativeGradient checks the gradients of y + log dy/dx where the second knot
// derivative of two bins is D (see TestRQSplineHugeDerivativeClosedForm): in the first bin,
// log dy/dx ≈ −log D − 2 log(1−ξ), so its derivative is 2/((1−ξ)w_0) in x and −σ(u)/D ≈ −1/D in
// the parameter u of D, and y adds dy/dx ≈ 1/(D(1−ξ)²) in x and about −h_0/(D²(1−ξ)) in u.
// Before, the quotients over the overflowing square gave NaN.
func TestRQSplineHugeDerivativeGradient(t *testing.T) {
	const B = 3.0
	for _, D := range edgeDerivatives {
		for _, xi := range []float64{0.5, 0.25, 0.9} {
			t.Run(fmt.Sprintf("D=%g/ξ=%v", D, xi), func(t *testing.T) {
				u := []float64{0, 0, 0, 0, D}
				var k knots
				k.set(u, B)
				xk, wk := k.cw[0], k.cw[1]-k.cw[0]
				tp := nn.NewTape()
				x := nn.NewVariable(1, 1, []float64{xk + xi*wk})
				p := nn.NewVariable(1, len(u), append([]float64(nil), u...))
				y, ld := Spline{Bins: 2, Bound: B}.Forward(tp, x, p)
				tp.Backward(tp.Sum(tp.Concat(y, ld)))
				xi := (x.Data[0] - xk) / wk
				wantX := 2/((1-xi)*wk) + 1/(D*(1-xi)*(1-xi))
				if g := x.Grad[0]; !(math.Abs(g-wantX) <= 1e-13*wantX) {
					t.Errorf("∂/∂x = %v, want %v", g, wantX)
				}
				if g, want := p.Grad[4], -1/D; !(math.Abs(g-want) <= 1e-13*math.Abs(want)) {
					t.Errorf("∂/∂u = %v, want %v", g, want)
				}
				for i, g := range p.Grad {
					if math.IsNaN(g) || math.IsInf(g, 0) {
						t.Errorf("∂/∂u_%d = %v", i, g)
					}
				}
			})
		}
	}
}
