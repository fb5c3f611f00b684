package sbi_test

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/sbi/dist"
)

// A likelihood estimator trained on single trials serves observations of many i.i.d. trials to
// the diagnostics through Trials: each row of x holds the trials of one observation side by
// side. Here simulation-based calibration of an NLE on observations of 10 trials.
func ExampleNLE_Trials() {
	// θ ~ N(0, I₂); a trial is x ~ N(θ, 2²I), and an observation of n trials holds them side
	// by side: trial t in columns 2t and 2t+1.
	prior := dist.NewStandardNormal(2)
	trials := func(n int) sbi.SimFunc {
		return func(r *rand.Rand, th []float64) []float64 {
			x := make([]float64, 0, 2*n)
			for range n {
				x = append(x, th[0]+2*r.NormFloat64(), th[1]+2*r.NormFloat64())
			}
			return x
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	train := sbi.MustSimulate(rng, trials(1), prior.Sample(rng, 20000))
	nle := sbi.NewNLE(prior, sbi.NLEConfig{Hidden: 16, Transforms: 2})
	if _, err := nle.Train(train.Theta, train.X, sbi.TrainConfig{Epochs: 20, BatchSize: 200, LearningRate: 2e-3, Seed: 1}); err != nil {
		fmt.Println(err)
		return
	}

	est := nle.TrialsWith(10, sbi.SamplerConfig{Method: sbi.SamplerImportance})
	fmt.Println(est)
	test := sbi.MustSimulate(rng, trials(10), prior.Sample(rng, 300))
	sbc, err := diag.SBC(est, test.Theta, test.X, diag.RankConfig{Samples: 99, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	ecdf, err := diag.SBCECDF(sbc, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("ranks uniform:", strings.HasPrefix(ecdf.Verdict(), "consistent with uniform ranks"))
	// Output:
	// NLE (maf) over observations of up to 10 i.i.d. trials: the trials side by side in rows of 20 values, NaN trials after them as padding
	// ranks uniform: true
}
