//go:build amd64 && !noasm

package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestVectorScalarTwins checks that the vector exponential and logarithm give every value the
// bits of their scalar twins expOne and logOne, so that a value's result does not depend on
// where it lies in a slice (which group of four, or the tail): results stay identical however
// work is split over goroutines.
func TestVectorScalarTwins(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2: expVec and logVec are math.Exp and math.Log")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	xs := make([]float64, 4099)
	for i := range xs {
		xs[i] = 1400*rng.Float64() - 700
	}
	got := make([]float64, len(xs))
	expVec(got, xs)
	for i, x := range xs {
		if want := expOne(x); math.Float64bits(got[i]) != math.Float64bits(want) {
			t.Fatalf("exp(%v): vector %v, expOne %v", x, got[i], want)
		}
	}
	for i := range xs {
		xs[i] = math.Exp(1400*rng.Float64() - 700)
	}
	logVec(got, xs)
	for i, x := range xs {
		if want := logOne(x); math.Float64bits(got[i]) != math.Float64bits(want) {
			t.Fatalf("log(%v): vector %v, logOne %v", x, got[i], want)
		}
	}
}
