package dist

import (
	"math"
	"math/rand/v2"
	"sort"
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

// poissonChiSquare bins n draws of Poisson(lambda) into integer ranges of width about sd/3
// between λ ± 6 sd, pools neighbouring bins until each expects at least 5 draws (the tails
// beyond the range included), and returns Pearson's statistic with its degrees of freedom.
// The bin probabilities come from gonum's CDF (the regularized incomplete gamma function), not
// from the sampler's own mass function.
func poissonChiSquare(draws []int, lambda float64) (chi2 float64, df int) {
	n := float64(len(draws))
	sd := math.Sqrt(lambda)
	width := math.Max(1, math.Floor(sd/3))
	lo := math.Max(0, math.Floor(lambda-6*sd))
	cdf := distuv.Poisson{Lambda: lambda}.CDF
	// edges[i] is the smallest count of bin i; the first bin starts at 0, the last is open.
	edges := []float64{0}
	for e := lo; e <= lambda+6*sd; e += width {
		if e > 0 {
			edges = append(edges, e)
		}
	}
	prob := func(a, b float64) float64 { // P(a ≤ K < b), b = +Inf for the open bin
		lower := 0.0
		if a > 0 {
			lower = cdf(a - 1)
		}
		if math.IsInf(b, 1) {
			return 1 - lower
		}
		return cdf(b-1) - lower
	}
	var bins [][2]float64 // pooled [a, b)
	start := edges[0]
	for i := 1; i <= len(edges); i++ {
		end := math.Inf(1)
		if i < len(edges) {
			end = edges[i]
		}
		if n*prob(start, end) >= 5 || math.IsInf(end, 1) {
			bins = append(bins, [2]float64{start, end})
			start = end
		}
	}
	if last := bins[len(bins)-1]; n*prob(last[0], last[1]) < 5 && len(bins) > 1 {
		bins[len(bins)-2][1] = last[1]
		bins = bins[:len(bins)-1]
	}
	counts := make([]float64, len(bins))
	for _, k := range draws {
		i := sort.Search(len(bins), func(i int) bool { return float64(k) < bins[i][1] })
		counts[i]++
	}
	for i, b := range bins {
		e := n * prob(b[0], b[1])
		chi2 += (counts[i] - e) * (counts[i] - e) / e
	}
	return chi2, len(bins) - 1
}

// TestPoisson checks draws at λ = 5 (arrival counting), 10 (the smallest λ of PTRS), 50, 10⁶
// and 10¹² (PTRS; before it Poisson refused λ > 10⁴), or MaxPoissonLambda where that is lower
// (32-bit platforms).
// With n draws: the mean within 5 standard errors √(λ/n), the sample variance within 5 of its
// standard errors √((λ + 2λ²)/n), and Pearson's chi-square statistic on bins of about sd/3
// below the 0.999 quantile of its chi-square law (seeded; a level of 0.001 per case). The same
// statistic must reject two wrong samplers (power): the rounded normal approximation at λ = 5
// and Poisson(λ + √λ) at λ = 10⁶, a shift of one sd.
func TestPoisson(t *testing.T) {
	const n = 200000
	draw := func(seed uint64, f func(*rand.Rand) int) []int {
		rng := rand.New(rand.NewPCG(seed, 3))
		out := make([]int, n)
		for i := range out {
			out[i] = f(rng)
		}
		return out
	}
	for i, lambda := range []float64{5, 10, 50, 1e6, min(1e12, MaxPoissonLambda)} {
		ks := draw(uint64(i), func(rng *rand.Rand) int { return Poisson(rng, lambda) })
		var sum, sum2 float64
		for _, k := range ks {
			sum += float64(k) - lambda
		}
		mean := sum / n
		for _, k := range ks {
			d := float64(k) - lambda - mean
			sum2 += d * d
		}
		variance := sum2 / (n - 1)
		if se := math.Sqrt(lambda / n); math.Abs(mean) > 5*se {
			t.Errorf("λ = %g: mean λ%+.4g, want within 5 × %.3g", lambda, mean, se)
		}
		if se := math.Sqrt((lambda + 2*lambda*lambda) / n); math.Abs(variance-lambda) > 5*se {
			t.Errorf("λ = %g: variance %.6g, want %g within 5 × %.3g", lambda, variance, lambda, se)
		}
		if lambda > 1e6 {
			continue // gonum's CDF loses its digits at λ = 10¹²: mean and variance only
		}
		chi2, df := poissonChiSquare(ks, lambda)
		crit := distuv.ChiSquared{K: float64(df)}.Quantile(0.999)
		t.Logf("λ = %g: chi-square %.1f on %d df (0.999 quantile %.1f)", lambda, chi2, df, crit)
		if chi2 > crit {
			t.Errorf("λ = %g: chi-square %.1f on %d df above its 0.999 quantile %.1f", lambda, chi2, df, crit)
		}
	}
	for _, tc := range []struct {
		name   string
		lambda float64
		f      func(*rand.Rand) int
	}{
		{"rounded normal at λ = 5", 5, func(rng *rand.Rand) int {
			return max(0, int(math.Round(5+math.Sqrt(5)*rng.NormFloat64())))
		}},
		{"Poisson(λ + √λ) at λ = 10⁶", 1e6, func(rng *rand.Rand) int { return Poisson(rng, 1e6+1e3) }},
	} {
		chi2, df := poissonChiSquare(draw(9, tc.f), tc.lambda)
		crit := distuv.ChiSquared{K: float64(df)}.Quantile(0.999)
		t.Logf("power, %s: chi-square %.1f on %d df (0.999 quantile %.1f)", tc.name, chi2, df, crit)
		if chi2 <= crit {
			t.Errorf("the goodness-of-fit check does not reject the %s: chi-square %.1f ≤ %.1f", tc.name, chi2, crit)
		}
	}
	for _, bad := range []float64{-1, math.NaN(), 2 * MaxPoissonLambda} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Poisson(λ = %v) did not panic", bad)
				}
			}()
			Poisson(rand.New(rand.NewPCG(1, 1)), bad)
		}()
	}
}

// TestPoissonLogPMF compares the Stirling form of the log mass function (k ≥ 15) with the
// direct one where both are accurate, and with gonum's at λ = 10⁶.
func TestPoissonLogPMF(t *testing.T) {
	for _, c := range [][2]float64{{15, 10}, {40, 50}, {1000, 900}, {1e6 + 2000, 1e6}} {
		k, lambda := c[0], c[1]
		lg, _ := math.Lgamma(k + 1)
		direct := k*math.Log(lambda) - lambda - lg
		if got := poissonLogPMF(k, lambda); math.Abs(got-direct) > 1e-9*math.Max(1, math.Abs(direct)) {
			t.Errorf("log p(%g; %g) = %.12g, direct %.12g", k, lambda, got, direct)
		}
		if want := (distuv.Poisson{Lambda: lambda}).LogProb(k); math.Abs(poissonLogPMF(k, lambda)-want) > 1e-8*math.Max(1, math.Abs(want)) {
			t.Errorf("log p(%g; %g) = %.12g, gonum %.12g", k, lambda, poissonLogPMF(k, lambda), want)
		}
	}
}
