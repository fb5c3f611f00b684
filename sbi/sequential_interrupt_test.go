package sbi

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/internal/progresstest"
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

// TestSequentialInterruptLastProgress: the last progress message of an interrupted Sequential
// names the round it stopped in and what the returned result keeps (a cell whose
// MustSequential an interrupt stopped shows this line, not the error, which comes after the
// interrupt has ended the cell), and the simulation's own last message says the finished
// simulations are kept in that result, not in a *PartialSimulationError that Sequential does
// not return. One core, so that exactly the first k chunks of a simulation finish.
func TestSequentialInterruptLastProgress(t *testing.T) {
	const sims = 3 * ChunkRows
	cases := []struct {
		name     string
		k        int64 // chunks simulated before the interrupt; −1 for none
		cancelAt int   // training step that interrupts; 0 for none
		want     []string
	}{
		{"before anything", 0, 0, []string{
			"stopped by interrupt in round 1 of 2; nothing kept",
			fmt.Sprintf("stopped by interrupt before any of %d simulations finished; nothing kept", sims)}},
		{"simulating round 2", 4, 0, []string{
			fmt.Sprintf("stopped by interrupt in round 2 of 2; kept in the result returned with the error (MustSequential loses it): round 1 trained and %d of %d simulations of round 2; carry on with SequentialConfig.Continue = res", ChunkRows, sims),
			fmt.Sprintf("stopped by interrupt after %d of %d simulations; they are kept in the result Sequential returns with the error (MustSequential loses it)", ChunkRows, sims)}},
		{"training round 2", -1, 2*sims/20 + 2, []string{
			"stopped by interrupt in round 2 of 2; kept in the result returned with the error (MustSequential loses it): round 1 trained and the pairs of round 2, whose training stopped; carry on with SequentialConfig.Continue = res"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			withProcs(1, func() {
				rec := progresstest.Record(t)
				sim, ctx := newCancelAfter(c.k)
				if c.k == 0 {
					sim.cancel()
				}
				steps := 0
				e := NewNPE(dist.NewStandardNormal(2), NPEConfig{Hidden: 8, Transforms: 2})
				_, err := SequentialContext(ctx, e, sim, []float64{0.3, -0.2}, SequentialConfig{
					Rounds: 2, Simulations: sims, ThresholdSamples: 1000, Seed: 3,
					Train: TrainConfig{Epochs: 1, BatchSize: 20, Seed: 1,
						Regularizer: cancelAtStep{cancelAt: c.cancelAt, steps: &steps, cancel: sim.cancel}},
				})
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("error %v, want one wrapping context.Canceled", err)
				}
				got := rec.Finished("")
				slices.Reverse(got) // the outer bar finishes last
				if len(got) < len(c.want) {
					t.Fatalf("last messages %q, want %q first", got, c.want)
				}
				for i, w := range c.want {
					if got[i] != w {
						t.Errorf("last message %d (outer first) %q, want %q", i, got[i], w)
					}
				}
			})
		})
	}
}
