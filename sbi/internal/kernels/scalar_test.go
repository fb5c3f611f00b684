package kernels

import (
	"math"
	"testing"
)

// TestSoftplus compares softplus with log1p(eˣ) written with math.Log1p: within 4 ulps
// (relative 9e-16) from −700 to 700, and exactly x where e^−x vanishes against x.
func TestSoftplus(t *testing.T) {
	for x := -700.0; x <= 700; x += 0.0137 {
		var want float64
		if x > 0 {
			want = x + math.Log1p(math.Exp(-x))
		} else {
			want = math.Log1p(math.Exp(x))
		}
		if got := Softplus(x); math.Abs(got-want) > 9e-16*want {
			t.Fatalf("Softplus(%v) = %v, want %v (relative error %.2g)", x, got, want, math.Abs(got-want)/want)
		}
	}
	if got := Softplus(800); got != 800 {
		t.Errorf("Softplus(800) = %v, want 800", got)
	}
}
