package sbi

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/nn"
)

// cancelAtStep is a zero regularizer that counts the training steps and cancels the host's
// context in step cancelAt.
type cancelAtStep struct {
	cancelAt int
	steps    *int
	cancel   context.CancelFunc
}

func (cancelAtStep) Name() string { return "cancel" }

func (r cancelAtStep) Penalty(b *RegBatch) (*nn.Tensor, error) {
	if !b.Tape.NoGrad {
		*r.steps++
		if *r.steps == r.cancelAt {
			r.cancel()
		}
	}
	return b.Tape.Const(1, 1, []float64{0}), nil
}

// TestHostContextStopsTrainingWithinAStep checks that training honours the context a host
// sets through runenv: cancelled during step 5 of 50 epochs, it runs no further step and
// returns an error wrapping context.Canceled.
func TestHostContextStopsTrainingWithinAStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	prior, theta, x := gaussianPairs(rng, 300)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	runenv.SetContext(ctx)
	defer runenv.SetContext(nil)
	steps := 0
	reg := cancelAtStep{cancelAt: 5, steps: &steps, cancel: cancel}
	_, err := NewNRE(prior, NREConfig{Hidden: []int{8}}).Train(theta, x,
		TrainConfig{Epochs: 50, BatchSize: 20, Seed: 1, Regularizer: reg})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("training cancelled in step 5: error %v, want one wrapping context.Canceled", err)
	}
	if steps != 5 {
		t.Errorf("%d training steps ran, want 5: the step after the cancellation must not start", steps)
	}
}
