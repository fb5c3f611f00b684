package diag

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// kernelTestSentence is the row of a KernelTestResult's display that states its outcome.
func kernelTestSentence(r *KernelTestResult) string {
	return r.MIMEBundle()["text/plain"].(string)
}

// TestKernelTestLevelOutsideUnitInterval: a level that is NaN, negative, 1 or above is not a
// test level. Before the fix KCCSDTest and SKCETest accepted it: a NaN or negative level never
// rejected (p ≤ NaN is false) and the display said "no evidence of miscalibration" for a
// grossly miscalibrated MGM (δ = 2, p = 1/101); a level ≥ 1 rejected every data set.
func TestKernelTestLevelOutsideUnitInterval(t *testing.T) {
	for _, level := range []float64{math.NaN(), -0.1, 1, 1.5, math.Inf(1)} {
		for name, test := range map[string]func(*rand.Rand, []Prediction, *mat.Dense, KernelTestConfig) (*KernelTestResult, error){
			"KCCSD": KCCSDTest, "SKCE": SKCETest} {
			rng := rand.New(rand.NewPCG(1, 2))
			p, y := MustSyntheticData(rng, SyntheticConfig{Model: MeanGaussian, Dim: 2, Delta: 2, N: 40})
			res, err := test(rng, p, y, KernelTestConfig{Dist: DistKernelConfig{Exact: true}, Level: level, Bootstrap: 100})
			if err == nil {
				t.Errorf("%s at level %v: no error; result %q", name, level, kernelTestSentence(res))
			}
		}
	}
}

// TestKernelTestTooFewBootstrapDrawsIsInconclusive: with B bootstrap draws the smallest
// p-value is 1/(B + 1), so at B = 10 and level 0.05 no data set can be rejected. Before the fix
// the display said "no evidence of miscalibration" for an MGM with δ = 3 (statistic 7, p =
// 1/11). At B = 19 the smallest p-value is 1/20 = 0.05 ≤ 0.05: the test can reject and does.
func TestKernelTestTooFewBootstrapDrawsIsInconclusive(t *testing.T) {
	run := func(b int) *KernelTestResult {
		rng := rand.New(rand.NewPCG(1, 2))
		p, y := MustSyntheticData(rng, SyntheticConfig{Model: MeanGaussian, Dim: 2, Delta: 3, N: 40})
		res, err := KCCSDTest(rng, p, y, KernelTestConfig{Dist: DistKernelConfig{Exact: true}, Bootstrap: b})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run(10)
	s := kernelTestSentence(res)
	if res.Reject || strings.Contains(s, "no evidence") || !strings.Contains(s, "inconclusive") {
		t.Errorf("B = 10, level 0.05 (p = %.3g, reject %v): the display must say inconclusive, not \"no evidence\":\n%s", res.PValue, res.Reject, s)
	}
	res = run(19)
	if s := kernelTestSentence(res); !res.Reject || !strings.Contains(s, "rejected") || strings.Contains(s, "inconclusive") {
		t.Errorf("B = 19, level 0.05 (p = %.3g, reject %v): want rejected:\n%s", res.PValue, res.Reject, s)
	}
}

// TestKernelTestAllPairsUnderflowIsError: with a bandwidth σ = 1e-9 of the kernel on
// distributions every pair's kernel exp(−D²/(2σ²)) is below 1e-300 and used as 0, so the
// statistic and every bootstrap draw are 0 and the p-value is 1 whatever the data. Before the
// fix that was reported as "no evidence of miscalibration" for an MGM with δ = 3; it is an
// error, for every design, as the test has no information.
func TestKernelTestAllPairsUnderflowIsError(t *testing.T) {
	for _, design := range []Design{Complete, DisjointPairs, Superdiagonals} {
		for name, test := range map[string]func(*rand.Rand, []Prediction, *mat.Dense, KernelTestConfig) (*KernelTestResult, error){
			"KCCSD": KCCSDTest, "SKCE": SKCETest} {
			rng := rand.New(rand.NewPCG(1, 2))
			p, y := MustSyntheticData(rng, SyntheticConfig{Model: MeanGaussian, Dim: 2, Delta: 3, N: 40})
			res, err := test(rng, p, y, KernelTestConfig{Dist: DistKernelConfig{Exact: true, Bandwidth: 1e-9}, Design: design, Bootstrap: 100})
			if err == nil {
				t.Errorf("%s, %s: every pair underflowed (%d of %d) and no error; display:\n%s", name, design, res.Underflow, res.Pairs, kernelTestSentence(res))
			}
		}
	}
}
