package sbi

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/dist"
)

// noisyCopy simulates x = θ + 0.5·ε, ε standard normal.
type noisyCopy struct{ dim int }

func (s noisyCopy) DataDim() int { return s.dim }

func (s noisyCopy) SimulateBatch(rng *rand.Rand, theta, x *mat.Dense) {
	n, d := theta.Dims()
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			x.Set(i, j, theta.At(i, j)+0.5*rng.NormFloat64())
		}
	}
}

// TestSequentialInterruptPosteriorMatchesWeights interrupts Sequential during the training of
// round 2, after 2 of its epochs (or in its first step): the estimator keeps the best epoch of
// the round (Train's rule), and the result's Posterior must be the posterior of those weights,
// its log densities equal to those of a posterior built from the estimator now; with no epoch
// of a training from fresh weights the estimator is untrained and the result has no
// posterior. With an embedding (whose output the posterior holds) or a training from scratch
// (new standardization), the first round's posterior is not what the new weights compute.
func TestSequentialInterruptPosteriorMatchesWeights(t *testing.T) {
	const (
		round1Steps = 4 * 9 // 4 epochs of 180 training pairs in batches of 20
		round2Steps = 18    // one epoch of 360 training pairs
	)
	cases := []struct {
		name        string
		emb         Embedding
		fromScratch bool
		cancelAt    int
		trained     bool
	}{
		{"embedding, resumed", MLPEmbedding{Hidden: []int{8}, Out: 2}, false, round1Steps + 2*round2Steps + 3, true},
		{"embedding, from scratch", MLPEmbedding{Hidden: []int{8}, Out: 2}, true, round1Steps + 2*round2Steps + 3, true},
		{"no embedding, from scratch", nil, true, round1Steps + 2*round2Steps + 3, true},
		{"embedding, resumed, first step", MLPEmbedding{Hidden: []int{8}, Out: 2}, false, round1Steps + 1, true},
		{"from scratch, first step", nil, true, round1Steps + 1, false},
	}
	xo := []float64{0.3, -0.2}
	theta := dist.NewStandardNormal(2).Sample(rand.New(rand.NewPCG(7, 8)), 20)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			steps := 0
			e := NewNPE(dist.NewStandardNormal(2), NPEConfig{Hidden: 8, Transforms: 2, Embedding: c.emb})
			res, err := SequentialContext(ctx, e, noisyCopy{2}, xo, SequentialConfig{
				Rounds: 2, Simulations: 200, ThresholdSamples: 1000, FromScratch: c.fromScratch, Seed: 3,
				Train: TrainConfig{Epochs: 4, BatchSize: 20, Patience: 100, Seed: 1, Select: SelectLoss,
					Regularizer: cancelAtStep{cancelAt: c.cancelAt, steps: &steps, cancel: cancel}},
			})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want one wrapping context.Canceled", err)
			}
			if res == nil || len(res.Rounds) != 2 || !res.Rounds[1].Train.Interrupted {
				t.Fatalf("result %v: want the two rounds, the second interrupted", res)
			}
			if e.Trained() != c.trained {
				t.Fatalf("Trained() = %v, want %v", e.Trained(), c.trained)
			}
			if !c.trained {
				if res.Posterior != nil {
					t.Errorf("Posterior %v of an untrained estimator, want nil", res.Posterior)
				}
				return
			}
			if res.Posterior == nil {
				t.Fatal("no Posterior for a trained estimator")
			}
			got, want := res.Posterior.LogProb(theta), e.Posterior(xo).LogProb(theta)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("row %d: the result's posterior gives log density %v, the estimator's weights %v", i, got[i], want[i])
				}
			}
		})
	}
}
