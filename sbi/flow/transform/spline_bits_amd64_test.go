package transform

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/sbi/internal/kernels"
	"github.com/gosbi/gosbi/sbi/internal/nntest"
	"github.com/gosbi/gosbi/sbi/nn"
)

// splineOrdinaryDigest returns a digest of the bits of every result of the spline transform on
// seeded ordinary splines (parameters of scale up to 50, points inside and outside the bound):
// Forward's values, log-determinants and gradients, Forward without gradients, InverseColumn,
// ForwardOne and InverseOne.
func splineOrdinaryDigest() string {
	h := sha256.New()
	put := func(vs ...float64) {
		for _, v := range vs {
			binary.Write(h, binary.LittleEndian, math.Float64bits(v))
		}
	}
	rng := rand.New(rand.NewPCG(41, 42))
	for _, bins := range []int{1, 2, 5, 8, 10} {
		for _, scale := range []float64{1.5, 5, 50} {
			const n, D, B = 37, 3, 3.0
			s := Spline{bins, B}
			x := nntest.Var(rng, n, D, -4, 4)
			p := nn.NewVariable(n, D*s.Params(), randSplineParams(rng, n*D, scale, bins))
			tp := nn.NewTape()
			y, ld := s.Forward(tp, x, p)
			out := tp.Concat(y, ld)
			up := make([]float64, out.Len())
			for i := range up {
				up[i] = rng.NormFloat64()
			}
			tp.BackwardWith(out, up)
			put(y.Data...)
			put(ld.Data...)
			put(x.Grad...)
			put(p.Grad...)
			ng := nn.NewTape()
			ng.NoGrad = true
			y2, ld2 := s.Forward(ng, x, p)
			put(y2.Data...)
			put(ld2.Data...)
			for d := 0; d < D; d++ {
				P := s.Params()
				xs, lds, col := make([]float64, n*D), make([]float64, n), make([]float64, 0, n*P)
				for i := 0; i < n; i++ {
					col = append(col, p.Data[(i*D+d)*P:(i*D+d+1)*P]...)
				}
				s.InverseColumn(xs[d:], y.Data[d:], D, n, col, P, lds)
				for i := 0; i < n; i++ {
					put(xs[d+i*D], lds[i])
				}
			}
			for i := 0; i < n; i++ {
				for d := 0; d < D; d++ {
					u := p.Data[(i*D+d)*s.Params() : (i*D+d+1)*s.Params()]
					put(s.ForwardOne(x.Data[i*D+d], u))
					put(s.InverseOne(y.Data[i*D+d], u))
				}
			}
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// TestSplineOrdinaryBits checks that the spline transform keeps, on ordinary splines, the bits
// it had before the scaled path for knot derivatives beyond about 1e154 was added (saved runs
// stay valid), with the vector kernel and without it. The bits are amd64's, where no
// multiply-add is fused.
func TestSplineOrdinaryBits(t *testing.T) {
	const want = "9ecb2aa7f113a4f3da177b3200046c3db17c834b149b84f4a11591a31166b120"
	for _, w := range append(kernels.LaneCounts(), 0) {
		t.Run(fmt.Sprintf("lanes=%d", w), func(t *testing.T) {
			defer func(old int) { kernels.LaneCount = old }(kernels.LaneCount)
			kernels.LaneCount = w
			if got := splineOrdinaryDigest(); got != want {
				t.Errorf("digest %s, want the recorded %s", got, want)
			}
		})
	}
}
