package binom

import (
	"math"
	"testing"
)

// TestClopperPearsonClosedForms checks the bounds where they have closed forms: at k = 0 the
// upper bound solves (1 − p)ⁿ = alpha, at k = n the lower bound solves pⁿ = alpha, and at
// n = 1, k = 0 or 1 the bounds are 1 − alpha and alpha; and that they bracket k/n.
func TestClopperPearsonClosedForms(t *testing.T) {
	for _, c := range []struct {
		k, n   int
		alpha  float64
		lo, hi float64
	}{
		{0, 10, 0.05, 0, 1 - math.Pow(0.05, 0.1)},
		{10, 10, 0.05, math.Pow(0.05, 0.1), 1},
		{0, 1, 0.025, 0, 0.975},
		{1, 1, 0.025, 0.025, 1},
		{0, 300, 0.025, 0, 1 - math.Pow(0.025, 1.0/300)},
	} {
		lo, hi := ClopperPearson(c.k, c.n, c.alpha)
		if math.Abs(lo-c.lo) > 1e-9 || math.Abs(hi-c.hi) > 1e-9 {
			t.Errorf("ClopperPearson(%d, %d, %g) = [%.12f, %.12f], want [%.12f, %.12f]", c.k, c.n, c.alpha, lo, hi, c.lo, c.hi)
		}
	}
	for _, k := range []int{1, 37, 150, 299} {
		lo, hi := ClopperPearson(k, 300, 0.025)
		if p := float64(k) / 300; !(lo < p && p < hi) {
			t.Errorf("k = %d: [%g, %g] does not contain %g", k, lo, hi, p)
		}
	}
}
