package sbi

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/gosbi/gosbi/sbi/dist"
	"gonum.org/v1/gonum/mat"
)

const stillFallingHint = "was still falling when the epoch limit (TrainConfig.Epochs = "

// falling returns n validation losses that fall by step an epoch from 2.
func falling(n int, step float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 2 - step*float64(i)
	}
	return v
}

// TestTrainResultStillFalling checks the summary's hint that the epoch limit cut a training
// whose validation loss was still falling, on results whose losses are given: it must appear
// for a steady fall to the last epoch, and not for a run stopped early, interrupted, without
// validation, whose best epoch is not the last, that ran too few epochs to judge, or whose
// last epoch is its best only by the loss's wandering (the fall over the last 5 epochs, 0.05,
// is below twice the noise of their changes times √5, about 0.18).
func TestTrainResultStillFalling(t *testing.T) {
	noisy := []float64{1.2, 1.1, 1.02, 0.98, 1.03, 0.99, 1.01, 0.97}
	for _, c := range []struct {
		name string
		r    TrainResult
		hint bool
	}{
		{"steady fall cut by the limit", TrainResult{Epochs: 20, BestEpoch: 20, ValLoss: falling(20, 0.01)}, true},
		{"steady fall of the regularized score", TrainResult{Epochs: 8, BestEpoch: 8, ValLoss: falling(8, 0.01), ValRegTerm: make([]float64, 8), RegName: "penalty"}, true},
		{"stopped early by patience", TrainResult{Epochs: 20, BestEpoch: 10, Stopped: true, ValLoss: append(falling(10, 0.01), falling(10, 0)...)}, false},
		{"interrupted", TrainResult{Epochs: 20, BestEpoch: 20, Interrupted: true, ValLoss: falling(20, 0.01)}, false},
		{"no validation", TrainResult{Epochs: 20, BestEpoch: 20, TrainLoss: falling(20, 0.01)}, false},
		{"best epoch before the last", TrainResult{Epochs: 20, BestEpoch: 19, ValLoss: append(falling(19, 0.01), 1.9)}, false},
		{"too few epochs", TrainResult{Epochs: 3, BestEpoch: 3, ValLoss: falling(3, 0.1)}, false},
		{"wandering, last epoch best", TrainResult{Epochs: len(noisy), BestEpoch: len(noisy), ValLoss: noisy}, false},
		{"regularized score flat while the loss falls", TrainResult{Epochs: 8, BestEpoch: 8, RegName: "penalty", ValLoss: falling(8, 0.01),
			ValRegTerm: []float64{0, 0.01, 0.04, 0.01, 0.05, 0.02, 0.07, 0.03}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.r.Estimator, c.r.Duration = "NPE", time.Second
			if s := c.r.String(); strings.Contains(s, stillFallingHint) != c.hint {
				t.Errorf("String() = %q, want the hint: %v", s, c.hint)
			}
		})
	}
}

// TestTrainStillFallingHint trains an NPE twice on the same pairs: cut by an epoch limit of 8
// while its validation loss falls (best epoch 8), its summary must give the hint, naming the
// limit; with a patience of 2 and a limit of 400 epochs, stopped early, it must not.
func TestTrainStillFallingHint(t *testing.T) {
	prior := dist.NewStandardNormal(2)
	rng := rand.New(rand.NewPCG(5, 6))
	theta := prior.Sample(rng, 600)
	x := mat.NewDense(600, 2, nil)
	for i := range 600 {
		for j := range 2 {
			x.Set(i, j, theta.At(i, j)+0.3*rng.NormFloat64())
		}
	}
	cut, err := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1}).Train(theta, x, TrainConfig{Epochs: 8, BatchSize: 50, LearningRate: 1e-3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if cut.Stopped || cut.BestEpoch != 8 {
		t.Fatalf("the cut run stopped early %v with best epoch %d (validation losses %.4f): the premise, a loss falling at the limit, fails", cut.Stopped, cut.BestEpoch, cut.ValLoss)
	}
	if s := cut.String(); !strings.Contains(s, stillFallingHint+"8)") {
		t.Errorf("cut by the limit, validation losses %.4f: String() = %q, want the hint naming the limit 8", cut.ValLoss, s)
	}
	early, err := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1}).Train(theta, x, TrainConfig{Epochs: 400, BatchSize: 50, LearningRate: 1e-2, Patience: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !early.Stopped {
		t.Fatalf("the patient run was not stopped early (%d epochs): the premise fails", early.Epochs)
	}
	if s := early.String(); strings.Contains(s, stillFallingHint) {
		t.Errorf("stopped early: String() = %q, want no hint", s)
	}
}

// converged returns n validation losses that approach −2.5 as e^(−i/5): after 100 epochs the
// last changes are about 1e-9, a fall too small to matter though steady.
func converged(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = -2.5 + 0.5*math.Exp(-float64(i)/5)
	}
	return v
}

// TestTrainResultStillFallingMaterial checks the rule that the last epochs' fall must be a
// material part (over 1%) of the whole fall since the first epoch: a converged curve whose last
// five epochs fell by 1e-9 of a 0.5 fall gets no hint; the same curve cut at 20 epochs (last
// five: 3.9% of the fall) does.
func TestTrainResultStillFallingMaterial(t *testing.T) {
	for _, c := range []struct {
		epochs int
		hint   bool
	}{{100, false}, {20, true}} {
		r := TrainResult{Estimator: "NPE", Duration: 1, Epochs: c.epochs, BestEpoch: c.epochs, ValLoss: converged(c.epochs)}
		if s := r.String(); strings.Contains(s, stillFallingHint) != c.hint {
			t.Errorf("%d epochs: String() = %q, want the hint: %v", c.epochs, s, c.hint)
		}
	}
}
