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
