package certify

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/calib"
)

// stoppingPosterior samples like the posteriors of package sbi (Sample stops with the host's
// context, by a panic; SampleContext with its own) and calls cancel when asked for n draws. It
// counts in late the draws it made once stopped reported the run's context done.
type stoppingPosterior struct {
	sbi.Posterior
	n       int
	cancel  func()
	stopped func() bool
	late    *int
}

func (p stoppingPosterior) Sample(rng *rand.Rand, n int) *mat.Dense {
	s, err := p.SampleContext(runenv.Context(), rng, n)
	if err != nil {
		panic(err)
	}
	return s
}

func (p stoppingPosterior) SampleContext(ctx context.Context, rng *rand.Rand, n int) (*mat.Dense, error) {
	if n == p.n {
		p.cancel()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if p.stopped() {
		*p.late += n
	}
	return p.Posterior.Sample(rng, n), nil
}

// stoppingEstimator is scaledPosterior whose posteriors are stoppingPosterior.
type stoppingEstimator struct {
	scaledPosterior
	post stoppingPosterior
}

func (e stoppingEstimator) Posterior(x []float64) sbi.Posterior {
	p := e.post
	p.Posterior = e.scaledPosterior.Posterior(x)
	return p
}

// TestScoreCalibrationDrawsStopWithTheRun: score calibration drew the observation's posterior
// with Sample, which no CertifyContext context stops, and an interrupt of the host's context
// there was recorded as the step being skipped: the run went on and returned a certificate
// without an error. The draws now use SampleContext with the run's context, and an interrupt
// there stops the run with an error wrapping context.Canceled.
func TestScoreCalibrationDrawsStopWithTheRun(t *testing.T) {
	const draws = 37 // ScoreCalConfig.N: the observation's draws, which cancel the run
	for _, host := range []bool{false, true} {
		name := map[bool]string{false: "CertifyContext", true: "host context"}[host]
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			late := 0
			est := stoppingEstimator{scaledPosterior{0.7}, stoppingPosterior{n: draws, cancel: cancel,
				stopped: func() bool { return ctx.Err() != nil }, late: &late}}
			cfg := Config{Trained: est, Remedies: []Remedy{RemedyScoreCalibration},
				Simulations: 1000, TestSimulations: 300, CheckSimulations: 200,
				ScoreCalibration: calib.ScoreCalConfig{M: 10, N: draws}, ScoreCalibrationTests: 100,
				Samples: 20, SBCSamples: -1, Seed: 3}
			obs := mat.NewDense(1, 1, []float64{0.5})
			var cert *Certificate
			var err error
			if host {
				runenv.SetContext(ctx)
				defer runenv.SetContext(nil)
				cert, err = Certify(gaussPrior(), gaussSimulator{}, obs, cfg)
			} else {
				cert, err = CertifyContext(ctx, gaussPrior(), gaussSimulator{}, obs, cfg)
			}
			if ctx.Err() == nil {
				t.Fatalf("the run made no score calibration (the test's premise): %v %v", cert, err)
			}
			if !errors.Is(err, context.Canceled) {
				t.Errorf("error %v (certificate %v), want one wrapping context.Canceled", err, cert)
			}
			if late > 0 {
				t.Errorf("%d draws made after the run's context was done", late)
			}
		})
	}
}

// paddingSimulator simulates two trials of N(θ, 1), the second padded with NaN where θ > 1:
// an observation of one trial, as sbi.AmortizedTrials pads it.
type paddingSimulator struct{}

func (paddingSimulator) DataDim() int { return 2 }

func (paddingSimulator) SimulateBatch(rng *rand.Rand, theta, x *mat.Dense) {
	n, _ := theta.Dims()
	for i := range n {
		th := theta.At(i, 0)
		x.Set(i, 0, th+rng.NormFloat64())
		x.Set(i, 1, th+rng.NormFloat64())
		if th > 1 {
			x.Set(i, 1, math.NaN())
		}
	}
}

// paddedScaled is scaledPosterior (which reads the first trial alone) that reads NaN padding
// as sbi.AmortizedTrials does.
type paddedScaled struct{ scaledPosterior }

func (paddedScaled) Unpadded(x []float64) ([]float64, error) {
	if len(x) == 2 && math.IsNaN(x[1]) {
		return x[:1], nil
	}
	return x, nil
}

// TestScoreCalibrationReadsTheEstimatorsPadding: certify's score calibration left
// ScoreCalConfig.Padding unset, so that the calibration datasets an estimator of padded
// observations (sbi.AmortizedTrials) is made for were dropped as failed simulations. Padding is
// now the estimator where it reads padding and the config sets none, and they are kept.
func TestScoreCalibrationReadsTheEstimatorsPadding(t *testing.T) {
	obs := mat.NewDense(1, 2, []float64{2, 2.1})
	cert, err := Certify(gaussPrior(), paddingSimulator{}, obs, Config{Trained: paddedScaled{scaledPosterior{0.7}},
		Remedies: []Remedy{RemedyScoreCalibration}, Simulations: 1000, TestSimulations: 300, CheckSimulations: 200,
		ScoreCalibration: calib.ScoreCalConfig{M: 40, N: 50}, ScoreCalibrationTests: 100,
		Samples: 20, SBCSamples: -1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	o := cert.Observations[0]
	if o.ScoreCal == nil {
		t.Fatalf("no score calibration at the observation (the test's premise): %s", o.Reason)
	}
	if o.ScoreCal.Dropped != 0 || o.ScoreCal.Datasets != 40 {
		t.Errorf("score calibration on %d datasets, %d dropped; want all 40 kept, the padded ones read by the estimator", o.ScoreCal.Datasets, o.ScoreCal.Dropped)
	}
}
