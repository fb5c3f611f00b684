package certify

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gosbi/gosbi/sbi"
)

// TestCertifyPanicNamesStage gives Certify a simulator that panics on the rows whose θ₀
// exceeds 1.5 from the start of one simulation set of the run on (the plan is 1100 training,
// 100 check, 100 conformal, 100 test simulations). The run must stop with an error (a panic
// escaping from a simulation goroutine would end the test binary instead) that names the set
// and the stage of the run, the panic and how many simulations finished, says truly that the
// run does not use them and what to do, keeps the finished rows reachable through
// errors.As (the *sbi.PartialSimulationError, wrapped), and keeps the trained estimator once
// there is one.
func TestCertifyPanicNamesStage(t *testing.T) {
	prior := gaussPrior()
	for _, c := range []struct {
		rows       int64 // rows simulated before the simulator breaks
		set, stage string
		trained    bool // an estimator was trained before: the error keeps it
	}{
		{0, "the training set (1100 pairs)", "the initial estimator", false},
		{1100, "a check set (100 pairs)", "the initial estimator", true},
		{1200, "the conformal calibration set (100 pairs)", `the remedy "conformal regions"`, true},
		{1300, "the final test set (100 pairs)", "the final test", true},
	} {
		t.Run(c.set, func(t *testing.T) {
			sim := failingAfter{n: c.rows, done: new(atomic.Int64), panicOver: 1.5}
			cert, err := Certify(prior, sim, nil, Config{Simulations: 1400, TestSimulations: 100, CheckSimulations: 100,
				New: func() sbi.Estimator {
					return sbi.NewNPE(prior, sbi.NPEConfig{Transforms: 1, Hidden: 8})
				},
				Train: sbi.TrainConfig{Epochs: 2}, Remedies: []Remedy{RemedyConformal}, ConformalSimulations: 100, Samples: 20, SBCSamples: -1, Seed: 1})
			var part *sbi.PartialSimulationError
			if cert != nil || !errors.As(err, &part) || len(part.Panicked) == 0 {
				t.Fatalf("certificate %v, error %v: want no certificate and an error holding the rows that panicked", cert, err)
			}
			msg := err.Error()
			for _, want := range []string{"simulating " + c.set + " in " + c.stage, "panicked: broken simulator",
				fmt.Sprintf("%d of %d simulations finished", part.Finished, part.Total),
				"does not use the simulations that finished", "mend the simulator"} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not say %q", msg, want)
				}
			}
			if done, err := part.Done(); err != nil || len(done.Kept) != part.Finished {
				t.Errorf("the wrapped simulation's Done: %v rows, error %v; want the %d finished", done, err, part.Finished)
			}
			var inc *IncompleteError
			if errors.As(err, &inc) != c.trained {
				t.Errorf("error %v: holds the trained estimator %v, want %v", err, !c.trained, c.trained)
			}
		})
	}
}
