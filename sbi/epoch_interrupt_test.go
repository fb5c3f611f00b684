package sbi

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/sbi/nn"
)

// stoppedAtValidation is a regularizer of constant penalty 100 that cancels its context as
// the validation of epoch `at` begins and from then on returns 0, as a regularizer written in
// a notebook cell does once the cell's interrupt has stopped it.
type stoppedAtValidation struct {
	at    int
	state *struct {
		grad    bool
		epochs  int
		stopped bool
	}
	cancel context.CancelFunc
}

func (stoppedAtValidation) Name() string { return "stopped" }

func (r stoppedAtValidation) Penalty(b *RegBatch) (*nn.Tensor, error) {
	s := r.state
	if b.Tape.NoGrad && s.grad {
		s.epochs++
		if s.epochs == r.at {
			r.cancel()
			s.stopped = true
		}
	}
	s.grad = !b.Tape.NoGrad
	v := 100.0
	if s.stopped {
		v = 0
	}
	return b.Tape.Const(1, 1, []float64{v}), nil
}

// TestInterruptedEpochNotScored: an epoch that the interrupt reached is not scored, so a
// regularizer stopped midway (its penalty 0 from then on) cannot make it the best epoch that
// the interrupted training keeps.
func TestInterruptedEpochNotScored(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	prior, theta, x := gaussianPairs(rng, 300)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reg := stoppedAtValidation{at: 3, state: &struct {
		grad    bool
		epochs  int
		stopped bool
	}{}, cancel: cancel}
	npe := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1})
	res, err := npe.TrainContext(ctx, theta, x, TrainConfig{Epochs: 10, Seed: 1, Regularizer: reg, Select: SelectRegularized, Patience: 100})
	if !errors.Is(err, context.Canceled) || res == nil || !res.Interrupted {
		t.Fatalf("result %v, error %v; want an interrupted training", res, err)
	}
	if res.BestEpoch >= 3 || len(res.TrainLoss) != 2 || len(res.ValLoss) != 2 {
		t.Errorf("best epoch %d of %d train and %d validation losses; want the epochs before the interrupted third: best ≤ 2 of 2 and 2",
			res.BestEpoch, len(res.TrainLoss), len(res.ValLoss))
	}
}

// TestInterruptedEpochNotScoredStream is TestInterruptedEpochNotScored for TrainStream.
func TestInterruptedEpochNotScoredStream(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	prior, theta, x := gaussianPairs(rng, 300)
	train, val, err := storeOf(t, theta, x, 30).Split(0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reg := stoppedAtValidation{at: 3, state: &struct {
		grad    bool
		epochs  int
		stopped bool
	}{}, cancel: cancel}
	res, err := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1}).TrainStreamContext(ctx, train, val,
		TrainConfig{Epochs: 10, Seed: 1, Regularizer: reg, Select: SelectRegularized, Patience: 100})
	if !errors.Is(err, context.Canceled) || res == nil || !res.Interrupted {
		t.Fatalf("result %v, error %v; want an interrupted training", res, err)
	}
	if res.BestEpoch >= 3 || len(res.TrainLoss) != 2 || len(res.ValLoss) != 2 {
		t.Errorf("best epoch %d of %d train and %d validation losses; want best ≤ 2 of 2 and 2", res.BestEpoch, len(res.TrainLoss), len(res.ValLoss))
	}
}
