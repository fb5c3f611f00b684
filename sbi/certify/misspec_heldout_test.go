package certify

import (
	"context"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
)

// recordingNPE is an NPE that records the x values it trains on and those it summarizes.
type recordingNPE struct {
	*sbi.NPE
	mu                  *sync.Mutex
	trained, summarized map[float64]bool
}

func (e recordingNPE) TrainContext(ctx context.Context, theta, x *mat.Dense, cfg sbi.TrainConfig) (*sbi.TrainResult, error) {
	e.mu.Lock()
	for _, v := range x.RawMatrix().Data {
		e.trained[v] = true
	}
	e.mu.Unlock()
	return e.NPE.TrainContext(ctx, theta, x, cfg)
}

func (e recordingNPE) Summaries(x *mat.Dense) *mat.Dense {
	e.mu.Lock()
	for _, v := range x.RawMatrix().Data {
		e.summarized[v] = true
	}
	e.mu.Unlock()
	return e.NPE.Summaries(x)
}

// TestMisspecCalibratedOnHeldOut: certify calibrated the misspecification check of each
// observation on the estimator's own training simulations, where a learned embedding may put
// them closer together than new data and the check's level is not guaranteed (see
// diag.Misspecification). The check's reference and calibration simulations (the rows it
// summarizes) are now ones the estimator did not train on: the first check set, or with no
// check set a reference set of the budget.
func TestMisspecCalibratedOnHeldOut(t *testing.T) {
	prior := gaussPrior()
	for _, c := range []struct {
		name     string
		remedies []Remedy
	}{
		{"no remedies", NoRemedies()},
		{"a check set", []Remedy{RemedyConformal}},
	} {
		t.Run(c.name, func(t *testing.T) {
			est := recordingNPE{NPE: sbi.NewNPE(prior, sbi.NPEConfig{Transforms: 1, Hidden: 8}), mu: new(sync.Mutex),
				trained: map[float64]bool{}, summarized: map[float64]bool{}}
			cert, err := Certify(prior, gaussSimulator{}, mat.NewDense(1, 1, []float64{0.3}), Config{Simulations: 1500, TestSimulations: 100, CheckSimulations: 100,
				New: func() sbi.Estimator { return est }, Train: sbi.TrainConfig{Epochs: 2}, Remedies: c.remedies,
				ConformalSimulations: 100, LocalSimulations: -1, Samples: 20, SBCSamples: -1, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if len(cert.Observations) != 1 || cert.Observations[0].Misspec == nil {
				t.Fatalf("observations %+v, want one with a misspecification check", cert.Observations)
			}
			if len(est.summarized) == 0 {
				t.Fatal("the check summarized no simulations (the test's premise)")
			}
			seen := 0
			for v := range est.summarized {
				if est.trained[v] {
					seen++
				}
			}
			if seen > 0 {
				t.Errorf("%d of the %d values the check summarized are training simulations, want none", seen, len(est.summarized))
			}
		})
	}
}
