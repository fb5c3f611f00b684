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
	for off := 1; off < 8; off++ { // every value lands in another group of eight (or four), or the tail
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

// ulps32 is the distance between a and b in float32 units in the last place (as ordered
// integers; both finite).
func ulps32(a, b float32) int64 {
	key := func(v float32) int64 {
		u := int64(math.Float32bits(v))
		if u>>31 != 0 {
			return -(u &^ (1 << 31))
		}
		return u
	}
	d := key(a) - key(b)
	if d < 0 {
		d = -d
	}
	return d
}

// TestTanh32 compares Tanh32 with math.Tanh rounded to float32: within 2 float32 ulps on both
// sides of the 0.625 switch (or 1e-45 absolute, the smallest subnormal, near 0), ±1 where it
// rounds there, NaN and ±Inf exactly, 0 for ±0 (the sign of a zero is not kept, as in Tanh); and the vector kernel with its reference loop
// Tanh32Go bit for bit, at every offset of a slice (groups of sixteen and the tail), in place
// and not.
func TestTanh32(t *testing.T) {
	var src []float32
	for x := float32(-12); x <= 12; x += 0.000731 {
		src = append(src, x)
	}
	src = append(src, 0.625, -0.625, math.Nextafter32(0.625, 0), math.Nextafter32(0.625, 1), 1e-38, -1e-40, 0, float32(math.Copysign(0, -1)),
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 400, -800, 9, -9, math.Nextafter32(9, 0), 3e38)
	rng := rand.New(rand.NewPCG(5, 6))
	for range 4001 {
		src = append(src, float32(rng.NormFloat64()*math.Pow(10, rng.Float64()*4-3)))
	}
	dst := make([]float32, len(src))
	Tanh32(dst, src)
	ref := make([]float32, len(src))
	Tanh32Go(ref, src)
	worst := int64(0)
	for i, x := range src {
		want, got := float32(math.Tanh(float64(x))), dst[i]
		switch {
		case want != want:
			if got == got {
				t.Fatalf("tanh32(%v) = %v, want NaN", x, got)
			}
			continue
		case math.Float32bits(got) != math.Float32bits(ref[i]):
			t.Fatalf("tanh32(%v): Tanh32 %v, Tanh32Go %v", x, got, ref[i])
		}
		if u := ulps32(got, want); u > 2 && math.Abs(float64(got-want)) > 1e-45 {
			t.Fatalf("tanh32(%v) = %v, math.Tanh %v: %d ulps apart", x, got, want, u)
		} else {
			worst = max(worst, u)
		}
	}
	t.Logf("worst error %d ulps", worst)
	for off := 1; off < 16; off++ { // every value lands in another group of sixteen, or the tail
		part := make([]float32, len(src)-off)
		Tanh32(part, src[off:])
		for i, v := range part {
			if math.Float32bits(v) != math.Float32bits(dst[i+off]) && v == v {
				t.Fatalf("tanh32(%v) at offset %d: %v, %v at offset 0", src[i+off], off, v, dst[i+off])
			}
		}
	}
	in := append([]float32(nil), src...)
	Tanh32(in, in)
	for i := range in {
		if in[i] != dst[i] && dst[i] == dst[i] {
			t.Fatalf("in place: tanh32(%v) = %v, out of place %v", src[i], in[i], dst[i])
		}
	}
}
