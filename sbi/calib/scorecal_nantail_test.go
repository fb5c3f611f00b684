package calib

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/dist"
)

// TestScoreCalibrateNaNTailNoted calibrates an NLE of single trials served for observations
// of up to 4 trials (NLE.Trials) without ScoreCalConfig.Padding, on datasets of which some
// hold 4 trials, some are padded with NaN trials and one is a failed simulation (NaN in its
// first trial): the padded ones are dropped as failed simulations, and the result must say,
// in its String and its display, how many of the dropped end in NaN as padded observations
// do and that ScoreCalConfig.Padding keeps them. Before, it gave the count of dropped
// datasets only, with the note it gives for failed simulations. It says they end in NaN, not
// that they are padded as observations are: one NaN at the end may be a failed summary.
func TestScoreCalibrateNaNTailNoted(t *testing.T) {
	const trials, sigma = 4, 0.5
	rng := rand.New(rand.NewPCG(5, 6))
	est := trialsNLE(t, rng, trials, sigma)
	// Datasets 0 to 7: 1 and 4 are padded to 2 trials, 6 to 1 trial, 3 failed in its first
	// trial (NaN there, finite after: not padding); the others hold 4 trials.
	present := []int{4, 2, 4, -1, 2, 4, 1, 4}
	simulate := func(rng *rand.Rand, th *mat.Dense) *mat.Dense {
		r, _ := th.Dims()
		x := mat.NewDense(r, trials, nil)
		for i := range r {
			for t := range trials {
				v := th.At(i, 0) + sigma*rng.NormFloat64()
				if (present[i] > 0 && t >= present[i]) || (present[i] < 0 && t == 0) {
					v = math.NaN()
				}
				x.Set(i, t, v)
			}
		}
		return x
	}
	obs := est.Posterior([]float64{0.3, 0.1, -0.2, 0.4}).Sample(rng, 50)
	sc, err := ScoreCalibrate(rng, obs, simulate, RefitAmortized(est), ScoreCalConfig{M: len(present), N: 20})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Dropped != 4 {
		t.Fatalf("dropped %d datasets, want the 3 padded and the failed one", sc.Dropped)
	}
	display := sc.MIMEBundle()["text/plain"].(string)
	for name, text := range map[string]string{"String": fmt.Sprint(sc), "display": display} {
		for _, want := range []string{"4 calibration datasets dropped", "3 of them end in NaN after finite values", "set ScoreCalConfig.Padding to the estimator"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s %q does not say %q", name, text, want)
			}
		}
		if strings.Contains(text, "as observations padded with NaN trials are") {
			t.Errorf("%s %q claims the datasets ending in NaN are padded", name, text)
		}
	}
}

// TestScoreCalibrateNaNTailError: when too few datasets are left and some of the dropped end in
// NaN, the error gave a hint for padded observations and then overwrote it with a second one
// that claimed those datasets are finite "as observations padded with NaN trials are". It now
// gives one hint: how many end in NaN and, if that is padding, what to set.
func TestScoreCalibrateNaNTailError(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	simulate := func(rng *rand.Rand, th *mat.Dense) *mat.Dense {
		r, _ := th.Dims()
		x := mat.NewDense(r, 3, nil)
		for i := range r {
			x.SetRow(i, []float64{th.At(i, 0), math.NaN(), math.NaN()}) // one trial of three
		}
		return x
	}
	refit := func(rng *rand.Rand, x []float64, n int) (*mat.Dense, error) {
		return nil, fmt.Errorf("refit called on dataset %v, which should be dropped", x)
	}
	obs := dist.NewStandardNormal(1).Sample(rng, 50)
	_, err := ScoreCalibrate(rng, obs, simulate, refit, ScoreCalConfig{M: 3, N: 20})
	if err == nil {
		t.Fatal("no error, want one saying too few datasets were usable")
	}
	msg := err.Error()
	if !strings.Contains(msg, "3 of the 3 dropped end in NaN after finite values") || strings.Count(msg, "ScoreCalConfig.Padding") != 1 {
		t.Errorf("error %q, want one hint saying the 3 dropped end in NaN and what to set", msg)
	}
}
