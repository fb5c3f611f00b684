package dist

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestDiscreteVariates compares the empirical frequencies of n draws with the probability mass
// function: every count with expected frequency ≥ 5 must be within 5 binomial standard errors
// sqrt(n·p·(1−p)), and the mean within 5·sqrt(Var/n).
func TestDiscreteVariates(t *testing.T) {
	const n = 100000
	rng := rand.New(rand.NewPCG(11, 12))
	for _, tc := range []struct {
		name string
		draw func() int
		pmf  func(k float64) float64
		mean float64
		v    float64
	}{
		{"Binomial(1000,0.004) inversion", func() int { return Binomial(rng, 1000, 0.004) }, distuv.Binomial{N: 1000, P: 0.004}.Prob, 4, 1000 * 0.004 * 0.996},
		{"Binomial(1000,0.3) split", func() int { return Binomial(rng, 1000, 0.3) }, distuv.Binomial{N: 1000, P: 0.3}.Prob, 300, 210},
		{"Binomial(50,0.9) flipped", func() int { return Binomial(rng, 50, 0.9) }, distuv.Binomial{N: 50, P: 0.9}.Prob, 45, 4.5},
		{"Poisson(3)", func() int { return Poisson(rng, 3) }, distuv.Poisson{Lambda: 3}.Prob, 3, 3},
	} {
		counts := map[int]int{}
		sum := 0.0
		for i := 0; i < n; i++ {
			k := tc.draw()
			counts[k]++
			sum += float64(k)
		}
		if m := sum / n; math.Abs(m-tc.mean) > 5*math.Sqrt(tc.v/n) {
			t.Errorf("%s: mean %v, want %v", tc.name, m, tc.mean)
		}
		for k, c := range counts {
			p := tc.pmf(float64(k))
			if n*p < 5 {
				continue
			}
			if math.Abs(float64(c)-n*p) > 5*math.Sqrt(n*p*(1-p)) {
				t.Errorf("%s: count of %d is %d, expected %.1f", tc.name, k, c, n*p)
			}
		}
	}
	if Binomial(rng, 10, 0) != 0 || Binomial(rng, 10, 1) != 10 || Binomial(rng, 0, 0.5) != 0 {
		t.Error("degenerate binomials")
	}
}
