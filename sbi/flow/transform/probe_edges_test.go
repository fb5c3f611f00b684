package transform

import (
	"testing"

	"github.com/gosbi/gosbi/sbi/nn"
)

func TestProbeSplineEdges(t *testing.T) {
	const bins, B = 4, 3.0
	for _, s := range []float64{1e4, 1e8, 1e16, 1e300} {
		for _, pat := range [][]float64{
			{1, 0, -1, 0.5, 1, -1, 0, 0.3, 1, -1, 0.5},
			{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
			{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
		} {
			u := make([]float64, len(pat))
			for i, v := range pat {
				u[i] = s * v
			}
			sp := Spline{bins, B}
			for _, x := range []float64{-2.9, -1, 0.1, 2} {
				y, ld := sp.ForwardOne(x, u)
				xr, ldi := sp.InverseOne(y, u)
				tp := nn.NewTape()
				xv := tp.Variable(1, 1, []float64{x})
				pv := tp.Variable(1, len(u), append([]float64(nil), u...))
				yy, lld := sp.Forward(tp, xv, pv)
				tp.Backward(tp.Sum(tp.Concat(yy, lld)))
				xc := make([]float64, 1)
				ldc := make([]float64, 1)
				sp.InverseColumn(xc, []float64{y}, 1, 1, u, 0, ldc)
				t.Logf("s=%g pat0=%v x=%v: y=%v ld=%v inv=%v ldi=%v | tape y=%v ld=%v gx=%v gp=%v | col x=%v ld=%v", s, pat[0], x, y, ld, xr, ldi, yy.Data[0], lld.Data[0], xv.Grad, pv.Grad, xc[0], ldc[0])
			}
		}
	}
}
