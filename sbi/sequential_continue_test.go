package sbi

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/internal/progresstest"
	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/dist"
)

// countingCopy is noisyCopy{2} that counts the rows it simulates and cancels its context when
// its chunk after number cancelAt starts (never when cancelAt is 0); that chunk, which the
// interrupt reached, is not kept and simulates nothing.
type countingCopy struct {
	rows, chunks *atomic.Int64
	cancelAt     int64
	cancel       context.CancelFunc
}

func newCountingCopy(cancelAt int64, cancel context.CancelFunc) countingCopy {
	return countingCopy{rows: new(atomic.Int64), chunks: new(atomic.Int64), cancelAt: cancelAt, cancel: cancel}
}

func (countingCopy) DataDim() int { return 2 }

func (c countingCopy) SimulateBatch(rng *rand.Rand, theta, x *mat.Dense) {
	if c.chunks.Add(1) == c.cancelAt+1 && c.cancelAt > 0 { // cancelAt chunks finished; this one is not kept
		c.cancel()
		return
	}
	noisyCopy{2}.SimulateBatch(rng, theta, x)
	n, _ := theta.Dims()
	c.rows.Add(int64(n))
}

// continueConfig is a small two-round run whose training can be cancelled at a step.
func continueConfig(rounds int, fromScratch bool, cancelAt int, cancel context.CancelFunc) SequentialConfig {
	steps := 0
	if cancel == nil {
		cancel = func() {}
	}
	return SequentialConfig{
		Rounds: rounds, Simulations: 200, ThresholdSamples: 1000, FromScratch: fromScratch, Seed: 3,
		Train: TrainConfig{Epochs: 4, BatchSize: 20, Patience: 100, Seed: 1, Select: SelectLoss,
			Regularizer: cancelAtStep{cancelAt: cancelAt, steps: &steps, cancel: cancel}},
	}
}

func newContinueNPE() *NPE {
	return NewNPE(dist.NewStandardNormal(2), NPEConfig{Hidden: 8, Transforms: 2})
}

// TestSequentialContinue interrupts a two-round run (one core, so that the interrupt falls at
// the same row every time) in the simulation of round 2, in the training of round 2, or not
// at all, and continues it with SequentialConfig.Continue. Rounds already done must not be
// simulated or trained again (the continued run simulates only the rows that had not
// finished, and keeps round 1's training result), and the continued result must equal the
// uninterrupted run's pairs, training losses, region threshold and posterior bit for bit —
// except after an interrupted training that resumes from the weights of the round before,
// which is trained again from the weights the stopped training kept (the documented
// difference): there only the pairs must be equal. A finished two-round run continued to three
// rounds must equal a three-round run.
func TestSequentialContinue(t *testing.T) {
	const (
		round1Steps = 4 * 9 // 4 epochs of 180 training pairs in batches of 20
		round2Steps = 18    // one epoch of 360 training pairs
		chunks      = 4     // 200 simulations in chunks of 64
	)
	xo := []float64{0.3, -0.2}
	probe := dist.NewStandardNormal(2).Sample(rand.New(rand.NewPCG(7, 8)), 20)
	cases := []struct {
		name        string
		fromScratch bool
		cancelChunk int64 // chunk of the whole run after which the simulator cancels; 0 for none
		cancelStep  int   // training step at which the regularizer cancels; 0 for none
		rounds      int   // rounds of the interrupted run
		more        int   // rounds of the continued run
		simulated   int64 // rows the continued run simulates
		identical   bool  // the continued run equals the uninterrupted one bit for bit
		before      int   // rounds done before the continued run, which its bar does not time
		rowsBefore  int   // rows of the interrupted simulation done before, likewise
	}{
		{"simulation of round 2", false, chunks + 2, 0, 2, 2, 200 - 2*ChunkRows, true, 1, 2 * ChunkRows},
		{"training of round 2, from scratch", true, 0, round1Steps + 2*round2Steps + 3, 2, 2, 0, true, 1, 0},
		{"training of round 1", false, 0, 5, 2, 2, 200, true, 0, 0},
		{"training of round 2, resumed weights", false, 0, round1Steps + 2*round2Steps + 3, 2, 2, 0, false, 1, 0},
		{"a finished run, one more round", false, 0, 0, 2, 3, 200, true, 2, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			withProcs(1, func() {
				ref, err := SequentialContext(context.Background(), newContinueNPE(), newCountingCopy(0, nil), xo, continueConfig(c.more, c.fromScratch, 0, nil))
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				est := newContinueNPE()
				first, err := SequentialContext(ctx, est, newCountingCopy(c.cancelChunk, cancel), xo, continueConfig(c.rounds, c.fromScratch, c.cancelStep, cancel))
				interrupted := c.cancelChunk > 0 || c.cancelStep > 0
				if interrupted != errors.Is(err, context.Canceled) || (!interrupted && err != nil) {
					t.Fatalf("first run: error %v, want an interrupt: %v", err, interrupted)
				}
				if want := fmt.Sprintf("round 2: simulation interrupted, %d of 200 finished", 2*ChunkRows); c.cancelChunk > 0 && !strings.Contains(first.String(), want) {
					t.Errorf("the interrupted result's table does not say %q:\n%s", want, first)
				}
				sim := newCountingCopy(0, nil)
				rec := progresstest.Record(t)
				got, err := SequentialContext(context.Background(), est, sim, xo, SequentialConfig{
					Rounds: c.more, Simulations: 200, ThresholdSamples: 1000, FromScratch: c.fromScratch, Seed: 3,
					Train:    continueConfig(c.more, c.fromScratch, 0, nil).Train,
					Continue: first,
				})
				runenv.SetProgress(nil)
				if err != nil {
					t.Fatal(err)
				}
				checkResumedProgress(t, rec.Events(), c.before, c.rowsBefore)
				if n := sim.rows.Load(); n != c.simulated {
					t.Errorf("the continued run simulated %d rows, want %d", n, c.simulated)
				}
				if len(got.Rounds) != c.more {
					t.Fatalf("%d rounds, want %d", len(got.Rounds), c.more)
				}
				if len(first.Rounds) > 0 && first.Rounds[0].Train != nil && !first.Rounds[0].Train.Interrupted && got.Rounds[0].Train != first.Rounds[0].Train {
					t.Error("round 1, finished before, was trained again")
				}
				if !mat.Equal(got.Theta, ref.Theta) || !mat.Equal(got.X, ref.X) {
					t.Fatal("the continued run's pairs differ from the uninterrupted run's")
				}
				for i, rd := range got.Rounds {
					if rd.Train == nil || rd.Train.Interrupted {
						t.Fatalf("round %d: training %v, want a finished one", i+1, rd.Train)
					}
					if c.identical && rd.Train.BestLoss != ref.Rounds[i].Train.BestLoss {
						t.Errorf("round %d: best loss %v, the uninterrupted run's %v", i+1, rd.Train.BestLoss, ref.Rounds[i].Train.BestLoss)
					}
				}
				if got.Region == nil {
					t.Fatal("no final region")
				}
				if !c.identical {
					return
				}
				if got.Region.Threshold != ref.Region.Threshold {
					t.Errorf("region threshold %v, the uninterrupted run's %v", got.Region.Threshold, ref.Region.Threshold)
				}
				lp, want := got.Posterior.LogProb(probe), ref.Posterior.LogProb(probe)
				for i := range want {
					if lp[i] != want[i] {
						t.Fatalf("posterior log density %v at probe %d, the uninterrupted run's %v", lp[i], i, want[i])
					}
				}
			})
		})
	}
}

// TestSequentialContinueRefusals checks that Continue refuses a result it cannot carry on
// from, with an error naming what differs.
func TestSequentialContinueRefusals(t *testing.T) {
	xo := []float64{0.3, -0.2}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	est := newContinueNPE()
	first, err := SequentialContext(ctx, est, newCountingCopy(2, cancel), xo, continueConfig(2, false, 0, nil))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want an interrupt", err)
	}
	if first.X != nil || first.state.step != stepSimulate {
		t.Fatalf("the run stopped with X %v at step %v, want it in round 1's simulation", first.X, first.state.step)
	}
	base := continueConfig(2, false, 0, nil)
	cases := []struct {
		name string
		est  Estimator
		xo   []float64
		edit func(*SequentialConfig)
		want string
		sim  Simulator // nil for the run's simulator
	}{
		{"another estimator", newContinueNPE(), xo, func(*SequentialConfig) {}, "another estimator", nil},
		{"another seed", est, xo, func(c *SequentialConfig) { c.Seed = 4 }, "Seed", nil},
		{"other simulations", est, xo, func(c *SequentialConfig) { c.Simulations = 300 }, "Simulations", nil},
		{"another observation", est, []float64{0, 0}, func(*SequentialConfig) {}, "observation", nil},
		{"not from Sequential", est, xo, func(c *SequentialConfig) { c.Continue = &SequentialResult{Estimator: est, Method: TruncatedProposals} }, "not returned by Sequential", nil},
		{"another method", est, xo, func(c *SequentialConfig) { c.Method = AtomicProposals }, "proposals", nil},
		// the interrupted simulation of round 1 holds rows of 2 values, the result no X yet
		{"a simulator of another width", est, []float64{0.3, -0.2, 0}, func(*SequentialConfig) {}, "observation", noisyCopy{3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := base
			cfg.Continue = first
			c.edit(&cfg)
			var sim Simulator = newCountingCopy(0, nil)
			if c.sim != nil {
				sim = c.sim
			}
			res, err := SequentialContext(context.Background(), c.est, sim, c.xo, cfg)
			if err == nil || res != nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("result %v, error %v; want none and an error naming %q", res, err, c.want)
			}
		})
	}
}

// checkResumedProgress checks the events of a continued Sequential: its rounds, which give no
// estimate of the time left, count the rounds done before as done before its clock started,
// and so does a resumed simulation its rows.
func checkResumedProgress(t *testing.T, evs []runenv.ProgressEvent, rounds, rows int) {
	t.Helper()
	var seq, resumed int
	for _, e := range evs {
		switch {
		case strings.HasPrefix(e.Label, "sequential"):
			if seq++; seq > 1 && (e.Before != rounds || e.Estimate != runenv.EstimateNone) {
				t.Errorf("event %q: Before %d, Estimate %d; want Before %d (rounds done before), Estimate %d (none)", e, e.Before, e.Estimate, rounds, runenv.EstimateNone)
			}
		case e.Label == "simulate" && e.Done > 0 && e.Before > 0:
			if resumed++; e.Before != rows {
				t.Errorf("simulation event %q: Before %d, want %d (rows done before)", e, e.Before, rows)
			}
		}
	}
	if seq < 2 {
		t.Errorf("%d events of the rounds, want at least the first and the last", seq)
	}
	if (resumed > 0) != (rows > 0) {
		t.Errorf("%d events of a resumed simulation, want some: %v", resumed, rows > 0)
	}
}
