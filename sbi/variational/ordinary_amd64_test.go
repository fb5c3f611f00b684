package variational

import (
	"math"
	"testing"

	"github.com/gosbi/gosbi/sbi/dist"
)

// TestOrdinaryLogBits checks that the logarithms of the variational estimator (log q's log
// Lⱼⱼ, the trainer's log-Jacobian constant log(hi − lo) and a Normal prior's log σ) keep, at
// ordinary values, the bits they had with math.Log, so that saved runs stay valid. The bits are
// amd64's, where no multiply-add is fused.
func TestOrdinaryLogBits(t *testing.T) {
	box := dist.SupportMap{Low: []float64{-2, 0}, High: []float64{3, 1e-300}}
	cases := []struct {
		name string
		got  float64
		bits uint64
	}{
		{"log q, diagonal, log-diagonals (0.3, -2)", gaussianLogProbAt([]float64{0.1, -0.2, 0.3, -2}, []float64{0.5, 0.4}, dist.SupportMap{}), 0xc02404d67feffcc0},
		{"log q, full, log-diagonals (-700, 1.5)", gaussianLogProbAt([]float64{0.1, -0.2, -700, 1.5, 0.7}, []float64{0.1, 0.4}, dist.SupportMap{}), 0x4085c539ac9c81d9},
		{"log q, box support", gaussianLogProbAt([]float64{0.1, -0.2, 0.3, -2}, []float64{0.5, 4e-301}, box), 0x4085957dcc0174f2},
		{"log-Jacobian on [-2, 3]", jacobianConstantAt(-2, 3), 0x3fcc8ff7c79a9a20},
		{"log-Jacobian on [0, 1e-300]", jacobianConstantAt(0, 1e-300), 0xc085a14b6977fcd2},
		{"log-Jacobian on [1, 1+2^-40]", jacobianConstantAt(1, 1+0x1p-40), 0xc03d1cb7eea86c0a},
		{"Normal prior, std (0.3, 2)", normalPriorTapeAt(t, []float64{0.3, 2}), 0xbff53b9a4b24348b},
		{"Normal prior, std (1e-300, 7)", normalPriorTapeAt(t, []float64{1e-300, 7}), 0x408577ef15bd3428},
	}
	for _, c := range cases {
		if math.Float64bits(c.got) != c.bits {
			t.Errorf("%s = %v (%#016x), want the recorded %v (%#016x)", c.name, c.got, math.Float64bits(c.got), math.Float64frombits(c.bits), c.bits)
		}
	}
}
