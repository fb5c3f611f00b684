package transform

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/nn"
)

// TestSplineBoundLimit: NewSpline refuses a bound above MaxBound, where the interval's
// length 2·Bound overflows and the forward pass returns NaN, with an error naming the limit;
// up to MaxBound the spline and its inverse are finite and round-trip, on the per-value and
// the tape paths.
func TestSplineBoundLimit(t *testing.T) {
	for _, b := range []float64{math.Nextafter(MaxBound, math.Inf(1)), 1e308, math.MaxFloat64} {
		if _, err := NewSpline(4, b); err == nil || !strings.Contains(err.Error(), "MaxBound") {
			t.Errorf("NewSpline(4, %g): err = %v, want an error naming MaxBound", b, err)
		}
	}
	rng := rand.New(rand.NewPCG(21, 22))
	for _, bins := range []int{1, 2, 6} {
		s, err := NewSpline(bins, MaxBound)
		if err != nil {
			t.Fatalf("NewSpline(%d, MaxBound): %v", bins, err)
		}
		u := randSplineParams(rng, 1, 1, bins)
		xs := []float64{-MaxBound, MaxBound}
		for i := 0; i < 20; i++ {
			xs = append(xs, MaxBound*(2*rng.Float64()-1))
		}
		for _, x := range xs {
			y, ld := s.ForwardOne(x, u)
			back, bld := s.InverseOne(y, u)
			if !(math.Abs(y) <= MaxBound) || math.IsNaN(ld) || math.IsInf(ld, 0) || !(math.Abs(back-x) <= 1e-12*MaxBound) || !(math.Abs(bld+ld) <= 1e-12) {
				t.Errorf("bound MaxBound, %d bins, x = %g: y = %g (log dy/dx %v), back %g (log dx/dy %v); want finite and a round trip", bins, x, y, ld, back, bld)
			}
		}
		xt := nn.NewVariable(len(xs), 1, xs)
		pt := nn.NewVariable(len(xs), len(u), repeatRows(u, len(xs)))
		for _, noGrad := range []bool{false, true} {
			tp := nn.NewTape()
			tp.NoGrad = noGrad
			yt, ldt := s.Forward(tp, xt, pt)
			for i, x := range xs {
				want, wantLD := s.ForwardOne(x, u)
				if got, gotLD := yt.Data[i], ldt.Data[i]; !(math.Abs(got-want) <= 1e-12*MaxBound) || !(math.Abs(gotLD-wantLD) <= 1e-9) {
					t.Errorf("bound MaxBound, %d bins, no gradient %v, x = %g: Forward %g (log-det %v), ForwardOne %g (%v)", bins, noGrad, x, got, gotLD, want, wantLD)
				}
			}
		}
	}
}

func repeatRows(u []float64, n int) []float64 {
	out := make([]float64, 0, n*len(u))
	for range n {
		out = append(out, u...)
	}
	return out
}
