package sbi

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/nn"
)

// errPenalty is the error of failAt.
var errPenalty = errors.New("penalty failed")

// failAt is a test regularizer that returns errPenalty at its at-th call on training batches
// (onVal false) or on validation batches (onVal true), and a zero penalty otherwise.
type failAt struct {
	at    int
	onVal bool
	calls *int
}

func (failAt) Name() string { return "fail" }

func (r failAt) Penalty(b *RegBatch) (*nn.Tensor, error) {
	if b.Tape.NoGrad == r.onVal {
		*r.calls++
		if *r.calls == r.at {
			return nil, errPenalty
		}
	}
	return b.Tape.Const(1, 1, []float64{0}), nil
}

// TestRegularizerErrorKeepsBestEpoch makes the regularizer fail during a fresh training: in
// epoch 4's training steps, in epoch 4's validation pass (under SelectRegularized, which
// scores the validation pairs with it), and in the first step. The training restores the best
// finished epoch, so after 3 epochs the estimator is trained with the best epoch's weights
// (its validation loss is recomputed and must equal the recorded one), and the error wraps the
// regularizer's and says that the best epoch was kept; with no finished epoch the estimator
// stays untrained and the error says so.
func TestRegularizerErrorKeepsBestEpoch(t *testing.T) {
	ests, theta, x := interruptEstimators(t)
	valBatches := 2 // the 30 validation pairs in batches of 20
	cases := []struct {
		name    string
		reg     failAt
		sel     Selection
		epochs  int // finished epochs
		trained bool
		note    string // what the error says, %d the best epoch
	}{
		{"training step", failAt{at: 3*stepsPerEpoch + 2}, SelectLoss, 3, true, "stopped at epoch 4 by an error; best epoch %d kept"},
		{"validation", failAt{at: 3*valBatches + 1, onVal: true}, SelectRegularized, 3, true, "stopped at epoch 4 by an error; best epoch %d kept"},
		{"first step", failAt{at: 1}, SelectLoss, 0, false, "stopped at epoch 1 by an error; no epoch finished, the estimator is not trained"},
	}
	for name, mk := range ests {
		for _, c := range cases {
			t.Run(name+"/"+c.name, func(t *testing.T) {
				calls := 0
				reg := c.reg
				reg.calls = &calls
				e := mk()
				res, err := e.Train(theta, x, TrainConfig{Epochs: 50, BatchSize: 20, Seed: 1, Regularizer: reg, Select: c.sel})
				if !errors.Is(err, errPenalty) {
					t.Fatalf("error %v, want one wrapping the regularizer's", err)
				}
				if res == nil || res.Epochs != c.epochs || c.trained != (res.BestEpoch >= 1 && res.BestEpoch <= 3) {
					t.Fatalf("result %+v: want %d finished epochs", res, c.epochs)
				}
				note := c.note
				if c.trained {
					note = fmt.Sprintf(note, res.BestEpoch)
				}
				if !strings.Contains(err.Error(), note) {
					t.Errorf("error %q does not say %q", err, note)
				}
				if e.Trained() != c.trained {
					t.Fatalf("Trained() = %v, want %v", e.Trained(), c.trained)
				}
				if !c.trained {
					return
				}
				if got := validationLoss(t, e, theta, x); math.Abs(got-res.ValLoss[res.BestEpoch-1]) > 1e-9 {
					t.Errorf("validation loss of the kept weights %v, best epoch's %v: the best weights were not kept", got, res.ValLoss[res.BestEpoch-1])
				}
				if s := e.Posterior([]float64{0.2, -0.3}).Sample(rand.New(rand.NewPCG(1, 1)), 50); s.RawMatrix().Rows != 50 {
					t.Errorf("sampling after the error gave %d rows", s.RawMatrix().Rows)
				}
			})
		}
	}
}
