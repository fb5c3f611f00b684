package diag

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
)

// The stopping model of the trials tests: θ ~ N(0, 0.3²), trials x ~ N(θ, 1), taken until the
// first trial above stopAbove or until stopMax trials, NaN after the last. The number of trials
// depends on the data (and carries nothing about θ beyond them, so that it is ignorable for the
// posterior).
const (
	stopMax   = 5
	stopAbove = 1.5
)

// stopTrials reads observations of the stopping model as sbi.AmortizedTrials does: one value
// a trial, NaN trials at the end as padding.
type stopTrials struct{}

func (stopTrials) Posterior([]float64) sbi.Posterior          { panic("not used") }
func (stopTrials) LogProbPairs(theta, x *mat.Dense) []float64 { panic("not used") }

func (stopTrials) Unpadded(x []float64) ([]float64, error) {
	k := 0
	for k < len(x) && !math.IsNaN(x[k]) {
		k++
	}
	return x[:k], nil
}

// stopRow fills row with an observation of the stopping model at θ, each trial shifted by
// offset, and returns its number of trials.
func stopRow(rng *rand.Rand, theta, offset float64, row []float64) int {
	k := 0
	for k < stopMax {
		v := theta + rng.NormFloat64()
		row[k] = v + offset
		k++
		if v > stopAbove {
			break
		}
	}
	for t := k; t < stopMax; t++ {
		row[t] = math.NaN()
	}
	return k
}

// stopSims simulates n rows of the stopping model from the prior.
func stopSims(rng *rand.Rand, n int) *mat.Dense {
	x := mat.NewDense(n, stopMax, nil)
	for i := range n {
		stopRow(rng, 0.3*rng.NormFloat64(), 0, x.RawRowView(i))
	}
	return x
}

// TestMisspecificationTrialsStoppingRule checks the level of the check for observations of
// a varying number of trials whose number depends on the data, and its power. Each of 200
// repetitions draws 4,000 fresh simulations (about 230 to 300 hold each number of trials
// below 5) and an observation of the model that stopped before 5 trials, the case where the
// first k trials of longer simulations are distributed otherwise (none above 1.5).
//
// Level: the observation is rejected at α = 0.05 at most α + 3 SE (SE = √(0.05·0.95/200):
// 0.096) of the time. Measured: 0.070; compared with the simulations of at least k trials cut
// to k instead, it was rejected in 0.22 of them.
// Power: the observation with every trial shifted by 4 (a sensor's offset) is rejected in at
// least 0.9 of them. Measured: 1.0.
func TestMisspecificationTrialsStoppingRule(t *testing.T) {
	const reps, alpha = 200, 0.05
	rejected, detected := 0, 0
	for r := range reps {
		rng := rand.New(rand.NewPCG(uint64(r), 91))
		x := stopSims(rng, 4000)
		xo, bad := make([]float64, stopMax), make([]float64, stopMax)
		for {
			theta := 0.3 * rng.NormFloat64()
			seed := rng.Uint64()
			if stopRow(rand.New(rand.NewPCG(seed, 1)), theta, 0, xo) < stopMax {
				stopRow(rand.New(rand.NewPCG(seed, 1)), theta, 4, bad)
				break
			}
		}
		cfg := MisspecConfig{Seed: uint64(r), Reference: 150, Calibration: 150}
		for _, c := range []struct {
			xo    []float64
			count *int
		}{{xo, &rejected}, {bad, &detected}} {
			res, err := Misspecification(stopTrials{}, x, c.xo, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if res.Reject() {
				*c.count++
			}
		}
	}
	bound := alpha + 3*math.Sqrt(alpha*(1-alpha)/reps)
	level, power := float64(rejected)/reps, float64(detected)/reps
	t.Logf("level %.3f, power %.3f", level, power)
	if level > bound {
		t.Errorf("rejected %d of %d observations from the model (%.3f), above α + 3 SE = %.3f", rejected, reps, level, bound)
	}
	if power < 0.9 {
		t.Errorf("detected %d of %d shifted observations (%.3f), want ≥ 0.9", detected, reps, power)
	}
}

// TestMisspecificationTrialsTooFewOfThatNumber: an observation of a number of trials that too
// few simulations hold gets an error that says the check is inconclusive and why, not a
// verdict from simulations of other numbers of trials.
func TestMisspecificationTrialsTooFewOfThatNumber(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := stopSims(rng, 300) // about 20 of each number of trials below 5
	xo := []float64{0.2, -0.1, 1.9, math.NaN(), math.NaN()}
	res, err := Misspecification(stopTrials{}, x, xo, MisspecConfig{})
	if err == nil {
		t.Fatalf("got a verdict (p = %v on %d reference simulations), want an inconclusive error", res.PValue, res.Reference)
	}
	for _, want := range []string{"inconclusive", "as the observation (3", "at least 40"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
