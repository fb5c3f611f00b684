//go:build amd64 && !noasm

package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestVectorScalarTwins checks that the vector exponential and logarithm give every value the
// bits of their scalar twins ExpOne and LogOne, so that a value's result does not depend on
// where it lies in a slice (which group of four, or the tail): results stay identical however
// work is split over goroutines.
func TestVectorScalarTwins(t *testing.T) {
	if !AVX2 {
		t.Skip("no AVX2: Exp and Log are math.Exp and math.Log")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	xs := make([]float64, 4099)
	for i := range xs {
		xs[i] = 1400*rng.Float64() - 700
	}
	got := make([]float64, len(xs))
	Exp(got, xs)
	for i, x := range xs {
		if want := ExpOne(x); math.Float64bits(got[i]) != math.Float64bits(want) {
			t.Fatalf("exp(%v): vector %v, ExpOne %v", x, got[i], want)
		}
	}
	for i := range xs {
		xs[i] = math.Exp(1400*rng.Float64() - 700)
	}
	Log(got, xs)
	for i, x := range xs {
		if want := LogOne(x); math.Float64bits(got[i]) != math.Float64bits(want) {
			t.Fatalf("log(%v): vector %v, LogOne %v", x, got[i], want)
		}
	}
}

// TestTanhKernels runs each tanh kernel the CPU has, not only the one Tanh dispatches to,
// against TanhGo bit for bit on values on both sides of the 0.625 switch, NaN and ±Inf: the
// AVX-512 kernel's single division and the AVX2 kernel's two must give the same bits.
func TestTanhKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	src := make([]float64, 8*1001)
	for i := range src {
		src[i] = rng.NormFloat64() * math.Pow(10, 2*rng.Float64()-1.5)
	}
	copy(src, []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0.625, -0.625, math.Nextafter(0.625, 0), 22, -23})
	want := make([]float64, len(src))
	TanhGo(want, src)
	for _, k := range []struct {
		name string
		ok   bool
		run  func(dst, src []float64)
	}{{"tanhAVX2", AVX2, tanhAVX2}, {"tanhAVX512", AVX512, tanhAVX512}} {
		if !k.ok {
			t.Logf("%s: not supported by this CPU", k.name)
			continue
		}
		got := make([]float64, len(src))
		k.run(got, src)
		for i := range src {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
				t.Fatalf("%s: tanh(%v) = %v, TanhGo %v", k.name, src[i], got[i], want[i])
			}
		}
	}
}
