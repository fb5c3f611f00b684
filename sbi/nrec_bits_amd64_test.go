package sbi

import (
	"math"
	"testing"

	"github.com/gosbi/gosbi/sbi/nn"
)

// nrecLossAt is NRE-C's loss at fixed logits (3 observations, K = 2) and odds gamma.
func nrecLossAt(gamma float64) float64 {
	tp := nn.NewTape()
	tp.NoGrad = true
	L := []float64{0.3, -1.2, 2.5, -0.7, 0.1, 1.9, 4, -3.3, 0.02}
	loss, _, _ := contrastiveNRELoss(tp, tp.Const(3, 3, L), gamma)
	return loss.Item()
}

// TestNRECLossOrdinaryBits checks that NRE-C's loss keeps, at ordinary odds γ (normal numbers,
// down to the smallest decades), the bits it had when it took math.Log of γ, so that saved
// estimators and runs stay valid. The bits are amd64's, where no multiply-add is fused.
func TestNRECLossOrdinaryBits(t *testing.T) {
	for _, c := range []struct {
		gamma float64
		bits  uint64
	}{
		{1, 0x3ff2ae79912774ed}, {0.5, 0x3ff0b1437c66d7b7}, {4, 0x3fefbbd6c7d28c21},
		{1e-300, 0x023d0a6238d3f2e3}, {3e-308, 0x00adf688c353cdf5}, {1e300, 0x3fdd4b71ba526800},
	} {
		if got := nrecLossAt(c.gamma); math.Float64bits(got) != c.bits {
			t.Errorf("γ = %g: loss %v (%#016x), want the recorded %v (%#016x)", c.gamma, got, math.Float64bits(got), math.Float64frombits(c.bits), c.bits)
		}
	}
}
