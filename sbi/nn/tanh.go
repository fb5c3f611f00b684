package nn

import (
	"math"
	"sync"

	"github.com/gosbi/gosbi/sbi/internal/kernels"
)

// tanhVec sets dst[i] = tanh(src[i]) (dst and src may be the same slice), with the
// exponentials of a block computed by one vector call:
//
//	tanh x = sign(x)·(1 − t)/(1 + t),  t = e^−2|x|,  for |x| ≥ 0.625,
//
// and below 0.625, where 1 − t would cancel, x + x·z·P(z)/Q(z) with z = x², the rational
// approximation that math.Tanh uses there (Cephes). Both agree with math.Tanh to a few ulps.
func tanhVec(dst, src []float64) {
	const block = tanhBlock
	t := tanhBufs.Get().(*[block]float64) // a local array would escape through kernels.Exp
	defer tanhBufs.Put(t)
	for lo := 0; lo < len(src); lo += block {
		s := src[lo:min(lo+block, len(src))]
		for i, x := range s {
			t[i] = -2 * min(math.Abs(x), 22) // tanh(22) rounds to 1; NaN stays NaN
		}
		kernels.Exp(t[:len(s)], t[:len(s)])
		d := dst[lo : lo+len(s)]
		for i, x := range s {
			a := math.Abs(x)
			if a < 0.625 {
				d[i] = tanhSmall(x)
				continue
			}
			y := (1 - t[i]) / (1 + t[i])
			if x < 0 {
				y = -y
			}
			d[i] = y
		}
	}
}

// tanhBlock is the number of exponentials tanhVec computes per vector call; tanhBufs holds
// their buffers, so that a training step allocates nothing.
const tanhBlock = 64

var tanhBufs = sync.Pool{New: func() any { return new([tanhBlock]float64) }}

// tanhSmall is tanh(x) for |x| < 0.625: x + x·z·P(z)/Q(z), z = x² (Cephes' coefficients).
func tanhSmall(x float64) float64 {
	const (
		p0 = -9.64399179425052238628e-1
		p1 = -9.92877231001918586564e1
		p2 = -1.61468768441708447952e3
		q0 = 1.12811678491632931402e2
		q1 = 2.23548839060100448583e3
		q2 = 4.84406305325125486048e3
	)
	z := x * x
	return x + x*(z*((p0*z+p1)*z+p2)/(((z+q0)*z+q1)*z+q2))
}
