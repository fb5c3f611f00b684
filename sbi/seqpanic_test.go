package sbi

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// roundPanic is noisyCopy{2} that counts the rows it is given and, from row after of the run on
// (round 2 of a run of after simulations a round) and until mended, panics on the rows whose
// θ₀ exceeds over.
type roundPanic struct {
	rows   *atomic.Int64
	after  int64
	over   float64
	mended *atomic.Bool
}

func (roundPanic) DataDim() int { return 2 }

func (p roundPanic) SimulateBatch(rng *rand.Rand, theta, x *mat.Dense) {
	n, _ := theta.Dims()
	if p.rows.Add(int64(n))-int64(n) >= p.after && !p.mended.Load() {
		for i := 0; i < n; i++ {
			if theta.At(i, 0) > p.over {
				panic("broken in round 2")
			}
		}
	}
	noisyCopy{2}.SimulateBatch(rng, theta, x)
}

// TestSequentialPanicKeepsRound runs two rounds of 200 simulations with a simulator that
// panics in round 2 on the rows whose θ₀ exceeds 1.5. The error must name the round, the
// panic, how many rows panicked, that the finished simulations are kept in the result and how
// to carry on; the result's table must say that rows panicked, not that an interrupt came.
// Continuing with the simulator still broken must keep the finished rows and fail on the same
// rows; continuing once it is mended must simulate only the rows that panicked, keep round 1's
// training, and give the uninterrupted run's parameters and, in the chunks where nothing
// panicked, its simulations.
func TestSequentialPanicKeepsRound(t *testing.T) {
	const sims = 200
	xo := []float64{0.3, -0.2}
	sim := roundPanic{rows: new(atomic.Int64), after: sims, over: 1.5, mended: new(atomic.Bool)}
	sim.mended.Store(true)
	ref, err := SequentialContext(context.Background(), newContinueNPE(), sim, xo, continueConfig(2, false, 0, nil))
	if err != nil {
		t.Fatal(err)
	}
	sim.mended.Store(false)
	sim.rows.Store(0)
	first, err := SequentialContext(context.Background(), newContinueNPE(), sim, xo, continueConfig(2, false, 0, nil))
	if err == nil || first == nil || first.state.part == nil {
		t.Fatalf("got %v and error %v, want a result keeping round 2's simulation and an error", first, err)
	}
	part := first.state.part
	panicked := slices.Clone(part.Panicked)
	if len(panicked) == 0 || part.Finished+len(panicked) != sims || len(first.Rounds) != 1 {
		t.Fatalf("Panicked %v, Finished %d, %d rounds: want some rows panicked, the others finished, round 1 kept", panicked, part.Finished, len(first.Rounds))
	}
	msg := err.Error()
	for _, want := range []string{"round 2", "panicked: broken in round 2", fmt.Sprintf("%d rows panicked", len(panicked)),
		fmt.Sprintf("%d of %d simulations finished, kept in the result", part.Finished, sims), "Continue", "mend"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
	table := first.String()
	if want := fmt.Sprintf("round 2: simulation stopped: %d rows panicked; %d of %d finished and kept", len(panicked), part.Finished, sims); !strings.Contains(table, want) || strings.Contains(table, "interrupt") {
		t.Errorf("the result's table does not say %q (or speaks of an interrupt):\n%s", want, table)
	}

	cfg := continueConfig(2, false, 0, nil)
	cfg.Continue = first
	again, err := SequentialContext(context.Background(), first.Estimator, sim, xo, cfg)
	if err == nil || again.state.part == nil || again.state.part.Finished != part.Finished || !slices.Equal(again.state.part.Panicked, panicked) {
		t.Fatalf("continued with the simulator still broken: error %v, want the same %d rows to panic and %d kept", err, len(panicked), part.Finished)
	}

	sim.mended.Store(true)
	sim.rows.Store(0)
	cfg.Continue = again
	got, err := SequentialContext(context.Background(), first.Estimator, sim, xo, cfg)
	if err != nil {
		t.Fatalf("continued with the simulator mended: %v", err)
	}
	if n := sim.rows.Load(); n != int64(len(panicked)) {
		t.Errorf("the continued run simulated %d rows, want the %d that panicked", n, len(panicked))
	}
	if len(got.Rounds) != 2 || got.Rounds[0].Train != first.Rounds[0].Train {
		t.Fatalf("%d rounds, round 1 trained again: %v; want 2 rounds and round 1's training kept", len(got.Rounds), got.Rounds[0].Train != first.Rounds[0].Train)
	}
	if !mat.Equal(got.Theta, ref.Theta) {
		t.Fatal("the continued run's parameters differ from the uninterrupted run's")
	}
	clean := 0
	for c := 0; c*ChunkRows < sims; c++ {
		if slices.ContainsFunc(panicked, func(i int) bool { return i/ChunkRows == c }) {
			continue // its rows were run again one by one, each with its own stream
		}
		for i := c * ChunkRows; i < min((c+1)*ChunkRows, sims); i++ {
			clean++
			if !slices.Equal(got.X.RawRowView(sims+i), ref.X.RawRowView(sims+i)) {
				t.Fatalf("round 2, row %d (chunk %d, where nothing panicked): %v, the uninterrupted run's %v", i, c, got.X.RawRowView(sims+i), ref.X.RawRowView(sims+i))
			}
		}
	}
	if clean == 0 {
		t.Fatalf("rows %v panicked: every chunk of round 2 had a panic, nothing to compare", panicked)
	}
}
