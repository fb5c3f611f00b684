package mcmc

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ar1 returns m chains of n draws of the stationary AR(1) process xᵢ = φxᵢ₋₁ + √(1−φ²)εᵢ
// (unit variance), each shifted by shift[c]; its integrated autocorrelation time is
// (1+φ)/(1−φ).
func ar1(rng *rand.Rand, m, n int, phi float64, shift []float64) [][]float64 {
	out := make([][]float64, m)
	for c := range out {
		x := rng.NormFloat64()
		out[c] = make([]float64, n)
		for i := range out[c] {
			x = phi*x + math.Sqrt(1-phi*phi)*rng.NormFloat64()
			out[c][i] = x
			if shift != nil {
				out[c][i] += shift[c]
			}
		}
	}
	return out
}

// TestSplitRhat checks the level and power of the split R̂: chains of independent draws give
// R̂ within 4 of its standard deviations (RhatSD) of 1 in every one of 20 replications, and a
// chain stuck elsewhere (one of 4 shifted by 2 sd), a drifting chain (a trend through the
// chain) and chains of different scales (the folded part) all give R̂ above 1.01.
func TestSplitRhat(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const m, n = 4, 500
	for r := 0; r < 20; r++ {
		if got := SplitRhat(ar1(rng, m, n, 0, nil)); math.Abs(got-1) > 4*RhatSD(m, n) {
			t.Errorf("independent draws: R̂ = %.4f, expected 1 ± %.4f", got, 4*RhatSD(m, n))
		}
	}
	stuck := ar1(rng, m, n, 0, []float64{0, 0, 0, 2})
	drift := ar1(rng, m, n, 0, nil)
	for i := range drift[0] {
		drift[0][i] += 3 * float64(i) / n
	}
	scaled := ar1(rng, m, n, 0, nil)
	for i := range scaled[0] {
		scaled[0][i] *= 4
	}
	for name, chains := range map[string][][]float64{"stuck": stuck, "drift": drift, "scale": scaled} {
		if got := SplitRhat(chains); !(got > 1.01) {
			t.Errorf("%s: R̂ = %.4f, expected above 1.01", name, got)
		}
	}
	if got := SplitRhat([][]float64{{1, 1, 1, 1}, {1, 1, 1, 1}}); !math.IsNaN(got) {
		t.Errorf("constant chains: R̂ = %v, expected NaN", got)
	}
}

// TestESSBulk checks the bulk ESS against the closed form S·(1−φ)/(1+φ) of AR(1) chains
// (S draws in all; for φ = 0 it is S): within 20%, the estimator's own error at S = 20,000
// being a few percent.
func TestESSBulk(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	const m, n = 4, 5000
	for _, phi := range []float64{0, 0.5, 0.9} {
		want := float64(m*n) * (1 - phi) / (1 + phi)
		if got := ESSBulk(ar1(rng, m, n, phi, nil)); math.Abs(got/want-1) > 0.2 {
			t.Errorf("φ = %.1f: bulk ESS %.0f, closed form %.0f ± 20%%", phi, got, want)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, c := range [][][]float64{nil, {{1, 2, 3}}, {{1, 2, 3, 4}, {1, 2, 3}}, {{1, 2, math.NaN(), 4}}} {
		if Check(c) == nil {
			t.Errorf("Check(%v): no error", c)
		}
	}
	if err := Check([][]float64{{1, 2, 3, 4}}); err != nil {
		t.Error(err)
	}
}
