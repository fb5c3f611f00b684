package transform

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/sbi/internal/kernels"
)

// scalarForward is the scalar path of a block (splineBlock.prepare, knots, evalDeriv, kernels.LogOne).
func scalarForward(b *splineBlock, us [][]float64, xs []float64, k int, bound float64) (y, ld []float64) {
	b.prepare(us, k)
	for t, u := range us {
		b.knots(&b.s, t, u, bound)
		yv, d, ok := b.s.evalDeriv(xs[t])
		if ok {
			d = kernels.LogOne(d)
		}
		y, ld = append(y, yv), append(ld, d)
	}
	return y, ld
}

func scalarInverse(b *splineBlock, us [][]float64, ys []float64, k int, bound float64) (x, ld []float64) {
	b.prepare(us, k)
	for t, u := range us {
		b.knots(&b.s, t, u, bound)
		xv, l := b.s.inverse(ys[t], true)
		x, ld = append(x, xv), append(ld, l)
	}
	return x, ld
}

// Every spline gets the same bits from each vector kernel as from the scalar path, whatever
// its neighbours in a group, and the kernel takes the splines of ordinary parameters.
func TestSplineLanesMatchScalar(t *testing.T) {
	for _, w := range kernels.LaneCounts() {
		t.Run(fmt.Sprintf("lanes=%d", w), func(t *testing.T) {
			defer func(old int) { kernels.LaneCount = old }(kernels.LaneCount)
			kernels.LaneCount = w
			splineLanesMatchScalar(t)
		})
	}
}

func splineLanesMatchScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var b splineBlock // one block for every case: the kernel's constants follow k and the bound
	same := func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
	}
	for _, c := range []struct {
		k     int
		scale float64 // of the parameters
		bound float64
		taken float64 // least share of splines the kernel must take (where it runs)
	}{
		{2, 1, 5, 1}, {3, 2, 3, 1}, {8, 1, 5, 1}, {8, 3, 5, 1}, {8, 1, 2, 1}, {10, 1, 1, 1}, {17, 0.5, 5, 1},
		{8, 300, 5, 0}, // exponents beyond ±708: groups fall back
	} {
		const m = 29 // a short last group
		p := 3*c.k - 1
		for trial := 0; trial < 40; trial++ {
			us := make([][]float64, m)
			v := make([]float64, m)
			for i := range us {
				us[i] = randSplineParams(rng, 1, c.scale, c.k)
				v[i] = c.bound * (2*rng.Float64() - 1)
				if trial%10 == 9 && i%7 == 3 { // an odd value among ordinary ones
					us[i][rng.IntN(p)] = []float64{math.NaN(), 800, -800, math.Inf(1)}[i%4]
				}
			}
			if trial%5 == 4 {
				v[3], v[4] = -c.bound, c.bound // the ends of the interval
			}
			knotAt := trial%2 == 1 // points on knots: which bin holds them is decided by ≤
			if knotAt {
				for i := 5; i < m; i += 3 {
					var s knots
					s.set(us[i], c.bound)
					v[i] = s.cw[1+rng.IntN(c.k)]
				}
			}
			wantY, wantYL := scalarForward(&b, us, v, c.k, c.bound)
			ys := append([]float64(nil), wantY...) // the points of the inverse
			if knotAt {                            // some on the knots of the heights
				for i := 6; i < m; i += 3 {
					var s knots
					s.set(us[i], c.bound)
					ys[i] = s.ch[1+rng.IntN(c.k)]
				}
			}
			wantX, wantXL := scalarInverse(&b, us, ys, c.k, c.bound)
			for _, mode := range []int{kernels.LanesForward, kernels.LanesInverse, kernels.LanesInverseLogDet} {
				in, want, wantL := v, wantY, wantYL
				if mode != kernels.LanesForward {
					in, want, wantL = ys, wantX, wantXL
				}
				got, gotL := make([]float64, m), make([]float64, m)
				done := make([]bool, m)
				copy(b.us[:m], us)
				for i := range b.at[:m] {
					b.at[i] = i
				}
				rest := b.byLanes(m, c.k, c.bound, mode, in, 1, func(i int, r, ld float64) {
					got[i], gotL[i], done[i] = r, ld, true
				})
				for _, i := range b.at[:rest] {
					if done[i] {
						t.Fatalf("k=%d mode %d: spline %d both evaluated and declined", c.k, mode, i)
					}
				}
				taken := 0
				for i := range done {
					if !done[i] {
						continue
					}
					taken++
					if !same(got[i], want[i]) || (mode != kernels.LanesInverse && !same(gotL[i], wantL[i])) {
						t.Fatalf("k=%d scale %v mode %d spline %d at %v: kernel (%v, %v), scalar path (%v, %v)",
							c.k, c.scale, mode, i, in[i], got[i], gotL[i], want[i], wantL[i])
					}
				}
				if taken+rest != m {
					t.Fatalf("k=%d mode %d: %d evaluated + %d declined ≠ %d", c.k, mode, taken, rest, m)
				}
				if kernels.LaneCount > 0 && trial%10 != 9 && float64(taken) < c.taken*m {
					t.Fatalf("k=%d scale %v mode %d: the kernel took %d of %d ordinary splines", c.k, c.scale, mode, taken, m)
				}
			}
		}
	}
}

// A spline shared by every point (parameter stride 0) inverts as the same spline repeated
// for every point, and as the one-spline inverse.
func TestRQSplineInverseShared(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n, bins, B = 37, 8, 5.0
	P := SplineParams(bins)
	u := randSplineParams(rng, 1, 1, bins)
	rep := make([]float64, n*P)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		copy(rep[i*P:], u)
		y[i] = 6 * (2*rng.Float64() - 1) // some in the tails
	}
	x0, x1 := make([]float64, n), make([]float64, n)
	l0, l1 := make([]float64, n), make([]float64, n)
	Spline{bins, B}.InverseColumn(x0, y, 1, n, u, 0, l0)
	Spline{bins, B}.InverseColumn(x1, y, 1, n, rep, P, l1)
	for i := 0; i < n; i++ {
		wx, wl := rqsInverse(y[i], u, B)
		if x0[i] != x1[i] || l0[i] != l1[i] || math.Abs(x0[i]-wx) > 1e-12 || math.Abs(l0[i]-wl) > 1e-12 {
			t.Fatalf("point %d: shared (%v, %v), repeated (%v, %v), one spline (%v, %v)", i, x0[i], l0[i], x1[i], l1[i], wx, wl)
		}
	}
}

// TestSplineLanesDeclineNonFiniteForward: on a spline as wide as MaxBound, a narrow tall bin
// makes the vector kernel's h_k·num overflow, so its forward y is ±Inf where the scalar path,
// which divides first, gives a finite y. The kernel itself must decline such a group (return
// false), as it does an inverse whose x is not finite, so that byLanes need not scan its output.
func TestSplineLanesDeclineNonFiniteForward(t *testing.T) {
	const k = 2
	u := []float64{0, -30, -30, 0, 0} // bin 0 wide and flat, bin 1 narrow and tall
	var s knots
	s.set(u, MaxBound)
	x := s.cw[1] + 0.9*(s.cw[2]-s.cw[1]) // inside the steep bin
	if y, _ := rqsForward(x, u, MaxBound); !(math.Abs(y) <= math.MaxFloat64) {
		t.Fatalf("the scalar path's y = %v at x = %v, want a finite value", y, x)
	}
	for _, w := range kernels.LaneCounts() {
		if w == 0 {
			t.Log("no vector spline kernel on this CPU: nothing to check")
			continue
		}
		t.Run(fmt.Sprintf("lanes=%d", w), func(t *testing.T) {
			defer func(old int) { kernels.LaneCount = old }(kernels.LaneCount)
			kernels.LaneCount = w
			var l kernels.Lanes
			setLaneConstants(&l, k, MaxBound)
			for lane := range w {
				l.Rows[lane] = &u[0]
				l.V[lane] = x
			}
			if kernels.RunLanes(&l, k, kernels.LanesForward) {
				t.Errorf("the kernel took the group and gave y = %v, want it declined", l.Out[0][:w])
			}
		})
	}
}
