package calib

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
)

// TestScoreCalibratePaddedDatasets checks that score calibration keeps calibration datasets
// padded with NaN trials when ScoreCalConfig.Padding reads them (an NLE of single trials
// serving observations of up to 4 trials, every simulated dataset holding 1 to 3), passing
// the refit each row as simulated, padding included; that without Padding they are dropped
// with an error saying to set it; and that a malformed padding is an error naming the dataset.
func TestScoreCalibratePaddedDatasets(t *testing.T) {
	const trials, sigma = 4, 0.5
	rng := rand.New(rand.NewPCG(3, 4))
	est := trialsNLE(t, rng, trials, sigma)
	malformed := -1 // the dataset whose last trial follows its padding; −1 for none
	simulate := func(rng *rand.Rand, th *mat.Dense) *mat.Dense {
		r, _ := th.Dims()
		x := mat.NewDense(r, trials, nil)
		for i := range r {
			k := 1 + rng.IntN(trials-1)
			if i == malformed {
				k = 1
			}
			for t := range trials {
				v := math.NaN()
				if t < k || i == malformed && t == trials-1 {
					v = th.At(i, 0) + sigma*rng.NormFloat64()
				}
				x.Set(i, t, v)
			}
		}
		return x
	}
	var got [][]float64
	refit := func(rng *rand.Rand, x []float64, n int) (*mat.Dense, error) {
		got = append(got, append([]float64(nil), x...))
		return RefitAmortized(est)(rng, x, n)
	}
	obs := est.Posterior([]float64{0.3, 0.1, math.NaN(), math.NaN()}).Sample(rng, 50)
	cfg := ScoreCalConfig{M: 6, N: 20, Padding: est}

	sc, err := ScoreCalibrate(rng, obs, simulate, refit, cfg)
	if err != nil {
		t.Fatalf("ScoreCalibrate of padded datasets: %v", err)
	}
	if sc.Dropped != 0 || len(sc.Weights) != 6 {
		t.Errorf("kept %d datasets and dropped %d, want all 6 and none", len(sc.Weights), sc.Dropped)
	}
	if len(got) != 6 {
		t.Fatalf("the refit ran %d times, want 6", len(got))
	}
	for m, x := range got {
		if len(x) != trials || !math.IsNaN(x[trials-1]) {
			t.Errorf("refit %d received %v, want the padded row of %d values as simulated", m, x, trials)
		}
	}

	cfg.Padding = nil
	if _, err := ScoreCalibrate(rng, obs, simulate, refit, cfg); err == nil || !strings.Contains(err.Error(), "ScoreCalConfig.Padding") {
		t.Errorf("padded datasets without Padding: error %v, want one saying to set ScoreCalConfig.Padding", err)
	}

	cfg.Padding, malformed = est, 2
	if _, err := ScoreCalibrate(rng, obs, simulate, refit, cfg); err == nil || !strings.Contains(err.Error(), "calibration dataset 2") {
		t.Errorf("a trial after the padding: error %v, want one naming calibration dataset 2", err)
	}
}

// trialsNLE trains a small NLE of single trials, x = θ + sigma·ε under a standard normal
// prior, for 2 epochs on 300 pairs drawn with rng, and returns it serving observations of up
// to trials trials (importance sampling with 5 proposals): the estimator of the padded-dataset
// tests of score calibration.
func trialsNLE(t *testing.T, rng *rand.Rand, trials int, sigma float64) *sbi.AmortizedTrials {
	t.Helper()
	prior := dist.NewStandardNormal(1)
	theta := prior.Sample(rng, 300)
	single := mat.NewDense(300, 1, nil)
	for i := range 300 {
		single.Set(i, 0, theta.At(i, 0)+sigma*rng.NormFloat64())
	}
	nle := sbi.NewNLE(prior, sbi.NLEConfig{Hidden: 8, Transforms: 1})
	if _, err := nle.Train(theta, single, sbi.TrainConfig{Epochs: 2, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	return nle.TrialsWith(trials, sbi.SamplerConfig{Method: sbi.SamplerImportance, Proposals: 5})
}
