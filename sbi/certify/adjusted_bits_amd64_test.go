package certify

import (
	"math"
	"testing"
)

// TestAdjustedLogProbOrdinaryBits checks that the score-adjusted posterior's density keeps, for
// maps with ordinary diagonals (normal numbers, down to 1e−300), the bits it had when it took
// math.Log of the diagonal, so that saved certificates' results stay valid. The bits are
// amd64's, where no multiply-add is fused.
func TestAdjustedLogProbOrdinaryBits(t *testing.T) {
	for _, c := range []struct {
		l    []float64
		bits uint64
	}{
		{[]float64{1.5}, 0xbff0015a1566464e}, {[]float64{0.3}, 0x3fe37dcfc50e8dcc},
		{[]float64{1e-300}, 0x40859171ff6b6485}, {[]float64{7}, 0xc0045381e4345d49},
		{[]float64{0.8, 0.1, 2.5}, 0xbfff34be95318b83}, {[]float64{3e-308, -0.4, 1e300}, 0x4030109942af3df7},
	} {
		if got, _ := adjustedAt(t, c.l); math.Float64bits(got) != c.bits {
			t.Errorf("L %v: log density %v (%#016x), want the recorded %v (%#016x)", c.l, got, math.Float64bits(got), math.Float64frombits(c.bits), c.bits)
		}
	}
}
