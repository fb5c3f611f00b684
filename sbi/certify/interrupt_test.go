package certify

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/internal/progresstest"
	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/nn"
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
			rec := progresstest.Record(t)
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
			if last := rec.LastFinished(""); last != c.want {
				t.Errorf("last progress message %q, want %q", last, c.want)
			}
		})
	}
}

// cancelAtPenalty is a regularizer of penalty 0 that cancels a context at its call number at.
type cancelAtPenalty struct {
	calls  *int
	at     int
	cancel func()
}

func (cancelAtPenalty) Name() string { return "cancel" }

func (r cancelAtPenalty) Penalty(b *sbi.RegBatch) (*nn.Tensor, error) {
	*r.calls++
	if *r.calls == r.at {
		r.cancel()
	}
	return b.Tape.Const(1, 1, []float64{0}), nil
}

// regularizedNPE is an NPE whose every training uses reg, which certify cannot set.
type regularizedNPE struct {
	*sbi.NPE
	reg sbi.Regularizer
}

func (e regularizedNPE) TrainContext(ctx context.Context, theta, x *mat.Dense, cfg sbi.TrainConfig) (*sbi.TrainResult, error) {
	cfg.Regularizer = e.reg
	return e.NPE.TrainContext(ctx, theta, x, cfg)
}

// TestInterruptInnerProgress: the calls certify makes end their last progress lines with where
// an interrupt stopped them, not with what they keep (the best epoch of a training certify
// throws away, the finished rows of a simulation whose *PartialSimulationError is not the point
// of a Certify), since certify's own last line says what the run keeps.
func TestInterruptInnerProgress(t *testing.T) {
	prior := gaussPrior()
	for _, c := range []struct {
		name  string
		rows  int64 // simulated rows before the interrupt, or −1 for an interrupt in the first training's second epoch
		label string
		start bool // the interrupt comes as label starts instead
		want  string
	}{
		{"training", -1, "train NPE (maf)", false, "stopped at epoch 2 by interrupt"},
		{"simulation", 1250, "simulate", false, "stopped by interrupt after 64 of 100 simulations"},
		{"no simulation finished", 1200, "simulate", false, "stopped by interrupt before any of 100 simulations finished"},
		{"diagnostic", 1 << 40, "expected coverage (rank)", true, "stopped by interrupt before any of 100 test pairs finished"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var inner, last string
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			runenv.SetProgress(func(ev runenv.ProgressEvent) {
				if c.start && ev.Label == c.label {
					cancel()
				}
				if ev.Finished && ev.Label == c.label {
					inner = ev.Message
				}
				if ev.Finished {
					last = ev.Message
				}
			})
			defer runenv.SetProgress(nil)
			n := c.rows
			if n < 0 {
				n = 1 << 40
			}
			sim := cancelAfterRows{n: n, done: new(atomic.Int64), cancel: cancel}
			_, err := CertifyContext(ctx, prior, sim, nil, Config{Simulations: 1400, TestSimulations: 100, CheckSimulations: 100,
				New: func() sbi.Estimator {
					npe := sbi.NewNPE(prior, sbi.NPEConfig{Transforms: 1, Hidden: 8})
					if c.rows >= 0 {
						return npe
					}
					// 5 training batches and 1 validation batch an epoch: call 7 is in epoch 2.
					return regularizedNPE{npe, cancelAtPenalty{calls: new(int), at: 7, cancel: cancel}}
				},
				Train: sbi.TrainConfig{Epochs: 3}, Remedies: []Remedy{RemedyConformal}, ConformalSimulations: 100, Samples: 20, SBCSamples: -1, Seed: 1})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want one wrapping context.Canceled", err)
			}
			if inner != c.want {
				t.Errorf("last progress message of %q: %q, want %q", c.label, inner, c.want)
			}
			if !strings.HasPrefix(last, "stopped by interrupt in ") {
				t.Errorf("last progress message %q, want certify's", last)
			}
		})
	}
}

// TestInterruptErrorSaysWhatCertifyKeeps: the error of a run that an interrupt stopped in an
// inner training wrapped that training's own claim ("best epoch N kept"), which is not what
// the run keeps: a retraining that the interrupt stopped is thrown away with the step. The
// error now says where the run stopped and what it keeps (the best estimator trained so far,
// in the *IncompleteError; or nothing, before one was trained), and still wraps
// context.Canceled. An interrupt in a simulation set no longer adds the simulation's own claim
// that its finished rows are kept in the error, which contradicted "nothing kept".
func TestInterruptErrorSaysWhatCertifyKeeps(t *testing.T) {
	prior := gaussPrior()
	for _, c := range []struct {
		name     string
		rows     int64 // simulated rows before the interrupt, or −1 for an interrupt in a training
		at       int   // the regularizer's call that interrupts (each batch of an epoch calls it once)
		remedies []Remedy
		want     []string
		trained  bool // the error is an *IncompleteError
	}{
		{"training set", 0, 0, NoRemedies(),
			[]string{"stopped by interrupt in the initial estimator", "nothing kept"}, false},
		{"training set after some rows", 640, 0, NoRemedies(),
			[]string{"stopped by interrupt in the initial estimator", "nothing kept", "simulations finished"}, false},
		// 1300 training pairs: 6 training batches and 1 validation batch an epoch.
		{"initial training", -1, 9, NoRemedies(),
			[]string{"stopped by interrupt in the initial estimator", "the best estimator trained so far"}, true},
		// 900 then 1100 training pairs: 6 batches an epoch; call 25 is in the retraining's epoch 2.
		{"retraining with more simulations", -1, 18 + 7, []Remedy{RemedyMoreSimulations},
			[]string{`stopped by interrupt in the remedy "more simulations"`, "the best estimator trained so far (initial estimator"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			n := c.rows
			if n < 0 {
				n = 1 << 40
			}
			sim := cancelAfterRows{n: n, done: new(atomic.Int64), cancel: cancel}
			calls := new(int)
			_, err := CertifyContext(ctx, prior, sim, nil, Config{Simulations: 1400, TestSimulations: 100, CheckSimulations: 100,
				New: func() sbi.Estimator {
					npe := sbi.NewNPE(prior, sbi.NPEConfig{Transforms: 1, Hidden: 8})
					return regularizedNPE{npe, cancelAtPenalty{calls: calls, at: c.at, cancel: cancel}}
				},
				// A tolerance no check set of 100 pairs can meet: the remedies run.
				Target: Target{Tolerance: 1e-6}, MoreSimulations: 200,
				Train: sbi.TrainConfig{Epochs: 3}, Remedies: c.remedies, Samples: 20, SBCSamples: -1, Seed: 1})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want one wrapping context.Canceled", err)
			}
			var inc *IncompleteError
			if errors.As(err, &inc) != c.trained {
				t.Errorf("error %v (%T): an *IncompleteError is %v, want %v", err, err, !c.trained, c.trained)
			}
			msg := err.Error()
			if strings.Contains(msg, "best epoch") {
				t.Errorf("error %q claims an inner training's best epoch is kept", msg)
			}
			if strings.Contains(msg, "(kept:") || strings.Contains(msg, "Done()") {
				t.Errorf("error %q claims an inner simulation's rows are kept", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not say %q", msg, w)
				}
			}
		})
	}
}
