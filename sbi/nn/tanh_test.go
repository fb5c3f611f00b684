package nn

import (
	"math"
	"testing"
)

// TestTanhVec compares the block tanh with math.Tanh: within 4 ulps (relative 9e-16, or
// absolute 2.3e-16 near 0) on both sides of the 0.625 switch, for large arguments where it
// rounds to ±1, and NaN, ±Inf and ±0 exactly.
func TestTanhVec(t *testing.T) {
	var src []float64
	for x := -25.0; x <= 25; x += 0.00731 {
		src = append(src, x)
	}
	src = append(src, 0.625, -0.625, 0.62499999, 1e-300, -1e-17, 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 400, -800)
	dst := make([]float64, len(src))
	tanhVec(dst, src)
	for i, x := range src {
		want, got := math.Tanh(x), dst[i]
		switch {
		case math.IsNaN(want):
			if !math.IsNaN(got) {
				t.Fatalf("tanh(%v) = %v, want NaN", x, got)
			}
		case math.Abs(got-want) > 9e-16*math.Abs(want)+1e-300:
			t.Fatalf("tanh(%v) = %v, math.Tanh %v", x, got, want)
		}
	}
	in := append([]float64(nil), src...)
	tanhVec(in, in)
	for i := range in {
		if in[i] != dst[i] && !math.IsNaN(dst[i]) {
			t.Fatalf("in place: tanh(%v) = %v, out of place %v", src[i], in[i], dst[i])
		}
	}
}
