package certify

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
)

// cancelAfterRows is gaussSimulator that cancels a context once it has simulated n rows.
type cancelAfterRows struct {
	n      int64
	done   *atomic.Int64
	cancel func()
}

func (cancelAfterRows) DataDim() int { return 1 }

func (s cancelAfterRows) SimulateBatch(rng *rand.Rand, theta, x *mat.Dense) {
	rows, _ := theta.Dims()
	if s.done.Add(int64(rows))-int64(rows) >= s.n {
		s.cancel()
	}
	gaussSimulator{}.SimulateBatch(rng, theta, x)
}

// TestInterruptLastProgress: a run stopped by an interrupt ends with a progress line saying
// where it stopped and what the error keeps (a cell whose MustCertify an interrupt stopped shows
// this line, not the error, which comes after the interrupt has ended the cell): nothing before
// an estimator was trained, the best estimator so far after (an *IncompleteError), also when
// the interrupt comes in a remedy.
func TestInterruptLastProgress(t *testing.T) {
	prior := gaussPrior()
	const kept = "; the best estimator trained so far is kept, not certified, in the returned error (certify.IncompleteError: Estimator, Steps), which MustCertify loses"
	for _, c := range []struct {
		name string
		rows int64 // rows simulated before the interrupt: the plan is 1100 training, 100 check, 100 conformal, 100 test
		want string
	}{
		{"training set", 0, "stopped by interrupt in the initial estimator; nothing kept"},
		{"check set", 1100, "stopped by interrupt in the initial estimator" + kept},
		{"conformal set", 1200, `stopped by interrupt in the remedy "conformal regions"` + kept},
	} {
		t.Run(c.name, func(t *testing.T) {
			var last string
			runenv.SetProgress(func(ev runenv.ProgressEvent) {
				if ev.Finished {
					last = ev.Message
				}
			})
			defer runenv.SetProgress(nil)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			sim := cancelAfterRows{n: c.rows, done: new(atomic.Int64), cancel: cancel}
			_, err := CertifyContext(ctx, prior, sim, nil, Config{Simulations: 1400, TestSimulations: 100, CheckSimulations: 100,
				New: func() sbi.Estimator {
					return sbi.NewNPE(prior, sbi.NPEConfig{Transforms: 1, Hidden: 8})
				},
				Train: sbi.TrainConfig{Epochs: 2}, Remedies: []Remedy{RemedyConformal}, ConformalSimulations: 100, Samples: 20, SBCSamples: -1, Seed: 1})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want one wrapping context.Canceled", err)
			}
			if last != c.want {
				t.Errorf("last progress message %q, want %q", last, c.want)
			}
		})
	}
}
