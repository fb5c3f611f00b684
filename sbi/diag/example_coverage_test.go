package diag_test

import (
	"fmt"
	"math"

	"github.com/gosbi/gosbi/sbi/diag"
)

// The one-line coverage check of a notebook: the expected coverage of the HPD regions at the
// 19 levels 0.05 … 0.95, judged against the band of an exactly calibrated estimator.
func ExampleExpectedCoverage() {
	theta, x := jointSample(1000)
	for _, width := range []float64{1, 0.6} {
		cov := diag.ExpectedCoverage(shrinkModel{width}, theta, x, diag.Levels(19))
		fmt.Printf("width %.1f: %s\n", width, firstWords(cov.Verdict()))
	}
	// Output:
	// width 1.0: consistent with calibration
	// width 0.6: over-confident
}

// TARP (sbi's run_tarp and check_tarp) needs only posterior draws: its ATC is about 0 for a
// calibrated estimator and negative for an over-confident one, and the Kolmogorov–Smirnov test
// of its statistics against uniform tells the two apart.
func ExampleTARP() {
	theta, x := jointSample(1000)
	for _, width := range []float64{1, 0.6} {
		res, err := diag.TARP(shrinkModel{width}, theta, x, diag.RankConfig{Samples: 200, Seed: 1})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("width %.1f: %d levels, ATC below -1: %v, KS rejects uniform at 1%%: %v\n",
			width, len(res.Alpha), res.ATC < -1, res.KSPValue < 0.01)
	}
	// Output:
	// width 1.0: 101 levels, ATC below -1: false, KS rejects uniform at 1%: false
	// width 0.6: 101 levels, ATC below -1: true, KS rejects uniform at 1%: true
}

// The coverage of each parameter's central credible intervals: a posterior 1.5 times too wide
// covers the truth more often than the level says (conservative): the exact coverage of its
// intervals is P(|Z| < 1.5·z) for the level's quantile z, 0.69 and 0.99.
func ExampleMarginalCoverage() {
	theta, x := jointSample(1000)
	res, err := diag.MarginalCoverage(shrinkModel{1.5}, theta, x, diag.RankConfig{Samples: 199, Seed: 1, Levels: []float64{0.5, 0.9}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for k, level := range res.Levels {
		c := res.Coverage[0][k]
		fmt.Printf("%.0f%% interval: covers %.2f, above the band: %v\n", 100*level, c, c > res.Upper[k])
	}
	// Output:
	// 50% interval: covers 0.69, above the band: true
	// 90% interval: covers 0.99, above the band: true
}

// NewLC2ST trains the L-C2ST classifiers once on calibration pairs; Test then checks the
// estimator at any observation without training again. Here the estimator's posterior is half
// as wide as the true one.
func ExampleNewLC2ST() {
	theta, x := jointSample(300)
	l, err := diag.NewLC2ST(shrinkModel{width: 0.5}, theta, x, diag.LC2STConfig{
		Seed: 1, Null: 19, Evals: 500, Hidden: []int{16}, MaxEpochs: 40, LearningRate: 0.03, BatchSize: 600})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, xo := range []float64{-1, 0.5, 1.5} {
		res, err := l.Test([]float64{xo})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("x_o = %+.1f: %s (p = %.2f)\n", xo, firstWords(res.Verdict()), math.Round(100*res.PValue)/100)
	}
	// Output:
	// x_o = -1.0: rejected (p = 0.05)
	// x_o = +0.5: rejected (p = 0.05)
	// x_o = +1.5: rejected (p = 0.05)
}
