package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTanh compares Tanh with math.Tanh: within 4 ulps (relative 9e-16, or absolute 2.3e-16
// near 0) on both sides of the 0.625 switch, for large arguments where it rounds to ±1, and
// NaN, ±Inf and ±0 exactly; and the vector kernel with its reference loop TanhGo bit for bit,
// at every offset of a slice (groups of four and the tail), in place and not.
func TestTanh(t *testing.T) {
	var src []float64
	for x := -25.0; x <= 25; x += 0.00731 {
		src = append(src, x)
	}
	src = append(src, 0.625, -0.625, 0.62499999, math.Nextafter(0.625, 0), 1e-300, -1e-17, 0, math.Copysign(0, -1),
		math.Inf(1), math.Inf(-1), math.NaN(), 400, -800, 22, -22, 21.9999)
	rng := rand.New(rand.NewPCG(3, 4))
	for range 4001 {
		src = append(src, rng.NormFloat64()*math.Pow(10, rng.Float64()*4-3))
	}
	dst := make([]float64, len(src))
	Tanh(dst, src)
	ref := make([]float64, len(src))
	TanhGo(ref, src)
	for i, x := range src {
		want, got := math.Tanh(x), dst[i]
		switch {
		case math.IsNaN(want):
			if !math.IsNaN(got) {
				t.Fatalf("tanh(%v) = %v, want NaN", x, got)
			}
			continue
		case math.Abs(got-want) > 9e-16*math.Abs(want)+1e-300:
			t.Fatalf("tanh(%v) = %v, math.Tanh %v", x, got, want)
		case math.Float64bits(got) != math.Float64bits(ref[i]):
			t.Fatalf("tanh(%v): Tanh %v, TanhGo %v", x, got, ref[i])
		}
	}
	for off := 1; off < 4; off++ { // every value lands in another group of four, or the tail
		part := make([]float64, len(src)-off)
		Tanh(part, src[off:])
		for i, v := range part {
			if math.Float64bits(v) != math.Float64bits(dst[i+off]) && !math.IsNaN(v) {
				t.Fatalf("tanh(%v) at offset %d: %v, %v at offset 0", src[i+off], off, v, dst[i+off])
			}
		}
	}
	in := append([]float64(nil), src...)
	Tanh(in, in)
	for i := range in {
		if in[i] != dst[i] && !math.IsNaN(dst[i]) {
			t.Fatalf("in place: tanh(%v) = %v, out of place %v", src[i], in[i], dst[i])
		}
	}
}
