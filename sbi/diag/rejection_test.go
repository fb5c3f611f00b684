package diag

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// binomUpperTail is the smallest k with P(Binomial(n, p) > k) ≤ tail.
func binomUpperTail(n int, p, tail float64) int {
	b := distuv.Binomial{N: float64(n), P: p}
	for k := 0; k <= n; k++ {
		if 1-b.CDF(float64(k)) <= tail {
			return k
		}
	}
	return n
}

// TestRejectionCountsIsTheDirectLoop: the counts are those of calling KCCSDTest and SKCETest on
// SyntheticData with the documented streams, one dataset at a time.
func TestRejectionCountsIsTheDirectLoop(t *testing.T) {
	data := SyntheticConfig{Model: MeanGaussian, Dim: 2, Delta: 0.3}
	tests := []KernelTestSpec{
		{"fisher", false, KernelTestConfig{Dist: DistKernelConfig{Exact: true}, Bootstrap: 100}},
		{"mmd imq", false, KernelTestConfig{Target: IMQTarget, Dist: DistKernelConfig{Kind: MMDKernel}, Bootstrap: 100}},
		{"skce", true, KernelTestConfig{Dist: DistKernelConfig{Exact: true}, Bootstrap: 100}},
	}
	ns, reps := []int{16, 40}, 6
	const seed = 7
	got, err := RejectionCounts(seed, data, tests, ns, reps)
	if err != nil {
		t.Fatal(err)
	}
	for k, n := range ns {
		want := make([]int, len(tests))
		for r := 0; r < reps; r++ {
			stream := uint64(n)<<32 | uint64(r)
			cfg := data
			cfg.N = n
			preds, y := MustSyntheticData(rand.New(rand.NewPCG(seed, stream)), cfg)
			for ti, spec := range tests {
				rng := rand.New(rand.NewPCG(seed^(uint64(ti+1)*0x9E3779B97F4A7C15), stream))
				var res *KernelTestResult
				if spec.SKCE {
					res = MustSKCETest(rng, preds, y, spec.Config)
				} else {
					res = MustKCCSDTest(rng, preds, y, spec.Config)
				}
				if res.Reject {
					want[ti]++
				}
			}
		}
		for ti := range tests {
			if got[ti][k] != want[ti] {
				t.Errorf("%s at n = %d: %d rejections, the direct loop gives %d", tests[ti].Name, n, got[ti][k], want[ti])
			}
		}
	}
}

// TestRejectionCountsLevelAndPower: on the calibrated MGM (d = 2, n = 48) each of three kernel
// combinations rejects at most the 0.999 binomial quantile of 100 level-0.05 tests (12), and on
// the MMGM with δ = 0.6·1 (a shift the tests detect almost surely at this n) at least 90 of 100.
func TestRejectionCountsLevelAndPower(t *testing.T) {
	tests := []KernelTestSpec{
		{"fisher gauss", false, KernelTestConfig{Dist: DistKernelConfig{Exact: true}, Bootstrap: 200}},
		{"kgfd imq", false, KernelTestConfig{Target: IMQTarget, Dist: DistKernelConfig{Kind: KernelizedFisherKernel}, Bootstrap: 200}},
		{"mmd gauss", false, KernelTestConfig{Dist: DistKernelConfig{Kind: MMDKernel, Exact: true}, Bootstrap: 200}},
	}
	const reps = 100
	up := binomUpperTail(reps, 0.05, 0.001)
	null := MustRejectionCounts(1, SyntheticConfig{Model: MeanGaussian, Dim: 2}, tests, []int{48}, reps)
	alt := MustRejectionCounts(2, SyntheticConfig{Model: MeanGaussian, Dim: 2, Delta: 0.6}, tests, []int{48}, reps)
	for ti, spec := range tests {
		if null[ti][0] > up {
			t.Errorf("%s: %d/%d false rejections on MGM, above the 0.999 binomial quantile %d", spec.Name, null[ti][0], reps, up)
		}
		if alt[ti][0] < 90 {
			t.Errorf("%s: %d/%d rejections on MMGM δ = 0.6·1, want ≥ 90", spec.Name, alt[ti][0], reps)
		}
	}
}

func TestRejectionCountsBadInput(t *testing.T) {
	ok := []KernelTestSpec{{"fisher", false, KernelTestConfig{}}}
	cases := []struct {
		data  SyntheticConfig
		tests []KernelTestSpec
		ns    []int
		reps  int
		want  string
	}{
		{SyntheticConfig{}, nil, []int{8}, 1, "no tests"},
		{SyntheticConfig{}, ok, nil, 1, "no sample sizes"},
		{SyntheticConfig{}, ok, []int{1}, 1, "sample size 1"},
		{SyntheticConfig{}, ok, []int{8}, 0, "reps = 0"},
		{SyntheticConfig{Model: QuadraticGaussian, Dim: 2}, ok, []int{8}, 1, "Dim = 2"},
		{SyntheticConfig{}, ok, []int{8}, 1 << 23, "at most"},
	}
	for _, c := range cases {
		_, err := RejectionCounts(1, c.data, c.tests, c.ns, c.reps)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", c, err, c.want)
		}
	}
}

// mmgmKCCSD is the population KCCSD of the MMGM in d dimensions (x ~ N(0, I), y | x ~ N(x, I),
// predictions N(x + δ, I)) with the exact Fisher kernel of fixed bandwidth σ and the Gaussian
// target kernel of fixed bandwidth ℓ, derived by hand (not from the library): with u = x − x',
// scores s = δ − ε, s' = δ − ε' and r = u + ε − ε', the Stein identity removes every term but
// ‖δ‖²·E[k l], and E[exp(−‖u‖²/2σ²) exp(−‖r‖²/2ℓ²)] over u, ε − ε' ~ N(0, 2I) factorizes:
//
//	C = ‖δ‖² (ℓ²/(ℓ²+2))^{d/2} (1 + 2/σ² + 2/(ℓ²+2))^{−d/2}.
func mmgmKCCSD(delta2 float64, d int, ell, sigma float64) float64 {
	fd := float64(d)
	return delta2 * math.Pow(ell*ell/(ell*ell+2), fd/2) * math.Pow(1+2/(sigma*sigma)+2/(ell*ell+2), -fd/2)
}

// TestMeanIntervalCoversTheKCCSD: the KCCSD statistic of an MMGM (d = 2, δ = 0.5·1, n = 40,
// fixed bandwidths) has the closed-form expectation of mmgmKCCSD. 2000 datasets give 200
// intervals of 10 replicates each; at confidence 0.95 the number covering the true value must
// lie in the central 0.998 binomial range of Binomial(200, 0.95) ([181, 197]), and the grand
// mean must agree with the closed form within 3.29 standard errors. Under calibration (δ = 0,
// true value 0) the same coverage holds. Power: the intervals exclude 0 under the
// miscalibration in most draws (≥ 150 of 200), so a coverage check of a too-wide interval fails.
func TestMeanIntervalCoversTheKCCSD(t *testing.T) {
	const (
		d, n, m, intervals = 2, 40, 10, 200
		ell, sigma         = 1.5, 2.0
	)
	cfg := KernelTestConfig{TargetBandwidth: ell, Dist: DistKernelConfig{Exact: true, Bandwidth: sigma}, Bootstrap: 1}
	lo, hi := 181, 197
	for _, delta := range []float64{0.5, 0} {
		truth := mmgmKCCSD(float64(d)*delta*delta, d, ell, sigma)
		rng := rand.New(rand.NewPCG(11, uint64(delta*10)))
		covered, excludeZero := 0, 0
		var all []float64
		for iv := 0; iv < intervals; iv++ {
			v := make([]float64, m)
			for r := range v {
				preds, y := MustSyntheticData(rng, SyntheticConfig{Model: MeanGaussian, Dim: d, Delta: delta, N: n})
				v[r] = MustKCCSDTest(rng, preds, y, cfg).Statistic
			}
			all = append(all, v...)
			_, _, a, b, err := MeanInterval(v, 0.95)
			if err != nil {
				t.Fatal(err)
			}
			if a <= truth && truth <= b {
				covered++
			}
			if a > 0 || b < 0 {
				excludeZero++
			}
		}
		mean, se, _, _, _ := MeanInterval(all, 0.95)
		t.Logf("δ = %v: truth %.5f, grand mean %.5f ± %.5f, coverage %d/%d, intervals excluding 0: %d", delta, truth, mean, se, covered, intervals, excludeZero)
		if math.Abs(mean-truth) > 3.29*se {
			t.Errorf("δ = %v: grand mean %.5f ± %.5f, closed form %.5f", delta, mean, se, truth)
		}
		if covered < lo || covered > hi {
			t.Errorf("δ = %v: %d of %d intervals cover the true %.5f, want %d–%d", delta, covered, intervals, truth, lo, hi)
		}
		if delta > 0 && excludeZero < 150 {
			t.Errorf("δ = %v: only %d of %d intervals exclude 0", delta, excludeZero, intervals)
		}
	}
}

func TestMeanIntervalBadInput(t *testing.T) {
	for _, c := range []struct {
		v    []float64
		conf float64
		want string
	}{
		{[]float64{1}, 0.95, "1 replicates"},
		{[]float64{1, 2}, 1, "confidence 1"},
		{[]float64{1, math.NaN()}, 0.9, "replicate 1 is NaN"},
	} {
		if _, _, _, _, err := MeanInterval(c.v, c.conf); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, %v: error %v, want %q", c.v, c.conf, err, c.want)
		}
	}
}
