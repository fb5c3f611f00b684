package transform

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/sbi/internal/kernels"
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

// hugeInverseCases are splines with a huge knot derivative D (TestRQSplineHugeDerivativeClosedForm)
// and the bin whose points they invert. In the third bin of four equal ones (y_2 = 0, δ_2 ≈ 1,
// δ_3 = D), y ≈ h/(D(1−ξ)) keeps every bit of ξ; in the others y rounds onto a knot or the
// bin's middle, and any point that maps onto it is an answer.
func hugeInverseCases(D float64) []struct {
	name string
	u    []float64
	bin  int
} {
	return []struct {
		name string
		u    []float64
		bin  int
	}{
		{"2 bins, first", []float64{0, 0, 0, 0, D}, 0},
		{"2 bins, second", []float64{0, 0, 0, 0, D}, 1},
		{"3 bins, middle", []float64{0, 0, 0, 0, 0, 0, D, D}, 1},
		{"4 bins, second", []float64{0, 0, 0, 0, 0, 0, 0, 0, D, 0.5413, 0}, 1},
		{"4 bins, third", []float64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0.5413, D}, 2},
	}
}

// ulp returns the spacing of the float64 numbers at |v|.
func ulp(v float64) float64 { return math.Nextafter(math.Abs(v), math.Inf(1)) - math.Abs(v) }

// TestRQSplineHugeDerivativeInverse checks the round trip x → y → x where a knot derivative is
// huge: InverseOne(ForwardOne(x)) is finite and within one ulp of a point that the forward
// maps onto y (to 4e−16·B); it is x itself within the conditioning of the inverse (|dx/dy|
// times a few ulps of y and y_k: in the third of four bins, x to a few ulps); and where it maps
// onto y itself, its log dx/dy is −log dy/dx there. (Where y rounds to within an ulp of a knot,
// the inverse's ξ can lie between x_k and the next float64, and x rounds to the knot.) Before,
// the quadratic's b = h·δ_k − Δy·(δ_k + δ_{k+1} − 2s) cancelled or overflowed, and the inverse
// returned ±Inf or NaN.
func TestRQSplineHugeDerivativeInverse(t *testing.T) {
	const B = 3.0
	for _, D := range edgeDerivatives {
		for _, xi := range []float64{0.25, 0.5, 0.9} {
			for _, c := range hugeInverseCases(D) {
				t.Run(fmt.Sprintf("%s/D=%g/ξ=%v", c.name, D, xi), func(t *testing.T) {
					s := Spline{Bins: (len(c.u) + 1) / 3, Bound: B}
					var k knots
					k.set(c.u, B)
					lo, hi := k.cw[c.bin], k.cw[c.bin+1]
					x := lo + xi*(hi-lo)
					y, ld := s.ForwardOne(x, c.u)
					got, gotLD := s.InverseOne(y, c.u)
					if math.IsNaN(got) || math.IsInf(got, 0) || math.IsNaN(gotLD) || math.IsInf(gotLD, 0) {
						t.Fatalf("InverseOne(%v) = %v, %v; want finite values", y, got, gotLD)
					}
					near := false
					for _, v := range []float64{got, math.Nextafter(got, lo), math.Nextafter(got, hi)} {
						if yv, _ := s.ForwardOne(v, c.u); math.Abs(yv-y) <= 4e-16*B {
							near = true
						}
					}
					if !near {
						t.Errorf("InverseOne(%v) = %v: no point within an ulp of it maps onto y", y, got)
					}
					if tol := 4*(ulp(y)+ulp(k.ch[c.bin]))*math.Exp(-ld) + 4*ulp(x); !(math.Abs(got-x) <= tol) {
						t.Errorf("InverseOne(%v) = %v, want x = %v within %v", y, got, x, tol)
					}
					if yv, want := s.ForwardOne(got, c.u); math.Abs(yv-y) <= 4e-16*B && !(math.Abs(gotLD+want) <= 1e-14*math.Abs(want)+1e-15) {
						t.Errorf("log dx/dy = %v at %v, want −log dy/dx = %v", gotLD, got, -want)
					}
				})
			}
		}
	}
}

// TestRQSplineInverseLanesDecline checks that InverseColumn gives, with every vector kernel, the
// bits of its scalar path for splines whose knot derivatives make inverse's plain root
// inaccurate (plainRootOK): the kernel declines them, as the scalar path takes rqsEdgeRoot.
func TestRQSplineInverseLanesDecline(t *testing.T) {
	const B = 3.0
	defer func(old int) { kernels.LaneCount = old }(kernels.LaneCount)
	inverse := func(s Spline, u, ys []float64, lanes int) (x, ld []float64) {
		kernels.LaneCount = lanes
		x, ld = make([]float64, len(ys)), make([]float64, len(ys))
		s.InverseColumn(x, ys, 1, len(ys), u, 0, ld)
		return x, ld
	}
	check := func(name string, s Spline, u, ys []float64) {
		want, wantLD := inverse(s, u, ys, 0)
		for _, w := range kernels.LaneCounts() {
			x, ld := inverse(s, u, ys, w)
			for i := range x {
				if math.Float64bits(x[i]) != math.Float64bits(want[i]) || math.Float64bits(ld[i]) != math.Float64bits(wantLD[i]) {
					t.Errorf("%s, %d lanes, at y = %v: the kernel gives %v, %v; the scalar path %v, %v", name, w, ys[i], x[i], ld[i], want[i], wantLD[i])
				}
			}
		}
	}
	for _, D := range append([]float64{1e6, 1e8, 1e10, 1e12, 1e16}, edgeDerivatives...) {
		for _, c := range hugeInverseCases(D) {
			s := Spline{Bins: (len(c.u) + 1) / 3, Bound: B}
			var k knots
			k.set(c.u, B)
			lo, hi := k.cw[c.bin], k.cw[c.bin+1]
			var ys []float64
			for _, xi := range []float64{0.1, 0.25, 0.5, 0.75, 0.9, 0.99} {
				y, _ := s.ForwardOne(lo+xi*(hi-lo), c.u)
				ys = append(ys, y)
			}
			check(fmt.Sprintf("%s, D = %g", c.name, D), s, c.u, ys)
		}
	}
	// ordinary splines on huge intervals, which the kernel would take (b² overflows there)
	rng := rand.New(rand.NewPCG(7, 8))
	for _, bound := range hugeBounds {
		s := Spline{Bins: 6, Bound: bound}
		u := randSplineParams(rng, 1, 1, s.Bins)
		ys := make([]float64, 29)
		for i := range ys {
			ys[i] = bound * (2*rng.Float64() - 1)
		}
		check(fmt.Sprintf("bound %g", bound), s, u, ys)
	}
}

// hugeBounds are spline intervals [−B, B] where the quadratic's b² and 4ac overflow.
var hugeBounds = []float64{1e155, 1e200, 1e300}

// TestRQSplineHugeBoundInverse checks the round trip x → y → x of ordinary splines on huge
// intervals: InverseOne(ForwardOne(x)) is x to 1e−12·B and its log dx/dy is −log dy/dx to
// 1e−12. Before, the quadratic's b² and 4ac overflowed beyond B ≈ 1e154 and the inverse
// returned NaN, or a wrong point without a word.
func TestRQSplineHugeBoundInverse(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, bound := range append([]float64{3, 1e150}, hugeBounds...) {
		for _, bins := range []int{1, 2, 6} {
			s := Spline{Bins: bins, Bound: bound}
			u := randSplineParams(rng, 1, 1, bins)
			for i := 0; i < 20; i++ {
				x := bound * (2*rng.Float64() - 1)
				y, ld := s.ForwardOne(x, u)
				got, gotLD := s.InverseOne(y, u)
				if !(math.Abs(got-x) <= 1e-12*bound) || !(math.Abs(gotLD+ld) <= 1e-12) {
					t.Errorf("bound %g, %d bins: InverseOne(ForwardOne(%v)) = %v, log dx/dy %v; want x and %v", bound, bins, x, got, gotLD, -ld)
				}
			}
		}
	}
}
