package sbi

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// rowCanceller is a per-row simulator, noisy, that fails (nil) where θ₀ < failBelow and
// cancels its context as its row after the k-th starts, returning nothing for that row as a
// simulator written in a notebook cell does when the interrupt stops it midway: a
// deterministic interrupt of Simulate after k rows, in its first rows (while all have failed)
// or after them.
type rowCanceller struct {
	k         int64
	failBelow float64
	calls     *atomic.Int64
	cancel    context.CancelFunc
}

func (c rowCanceller) f(rng *rand.Rand, theta []float64) []float64 {
	if c.calls.Add(1) == c.k+1 && c.cancel != nil {
		c.cancel()
		return nil
	}
	out := noisy(rng, theta)
	if theta[0] < c.failBelow {
		out = nil
	}
	return out
}

// TestSimulateInterruptKeepsFinished interrupts Simulate (the per-row form) after k rows, on
// one core so that the rows finished are known: the first k while every row so far failed
// (the output's width still unknown), else the rows of the chunks finished before the chunk
// the interrupt reached, which is not kept (the row it stopped returned nothing).
// It requires no Simulation, a *PartialSimulationError wrapping context.Canceled counting
// those rows, Done equal to them in the uninterrupted run, and Resume (interrupted once more,
// then to the end) equal to the uninterrupted run bit for bit; with two cores only the
// equalities are required.
func TestSimulateInterruptKeepsFinished(t *testing.T) {
	const n = 6*ChunkRows + 9
	theta := grid(n) // θ₀ = (i mod 17)/17
	cases := []struct {
		name      string
		procs     int
		failBelow float64 // rows with θ₀ below it fail: 0.2 fails rows 0–3 of every 17
		k         int64
		finished  int // rows finished at the interrupt with one core
	}{
		{"in the first chunk", 1, 0, 3, 1}, // row 0 found the width; chunk 0 not kept
		{"in the third chunk", 1, 0, 2*ChunkRows + 5, 2 * ChunkRows},
		{"while all rows so far failed", 1, 0.2, 2, 2},
		{"at the first row that succeeds", 1, 0.2, 5, 5},
		{"two cores", 2, 0.2, ChunkRows + 7, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, err := SimulateContext(context.Background(), rand.New(rand.NewPCG(4, 5)), rowCanceller{k: -1, failBelow: c.failBelow, calls: new(atomic.Int64)}.f, theta)
			if err != nil {
				t.Fatal(err)
			}
			withProcs(c.procs, func() {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				sim := rowCanceller{k: c.k, failBelow: c.failBelow, calls: new(atomic.Int64), cancel: cancel}
				s, err := SimulateContext(ctx, rand.New(rand.NewPCG(4, 5)), sim.f, theta)
				if s != nil {
					t.Fatalf("an interrupted Simulate returned a Simulation of %d rows beside its error", len(s.Kept))
				}
				var part *PartialSimulationError
				if !errors.Is(err, context.Canceled) || !errors.As(err, &part) {
					t.Fatalf("error %v, want a *PartialSimulationError wrapping context.Canceled", err)
				}
				if part.Total != n || (c.finished >= 0 && part.Finished != c.finished) {
					t.Errorf("%d of %d finished, want %d of %d", part.Finished, part.Total, c.finished, n)
				}
				checkDone(t, part, want)
				// Interrupt the resumed run once more, then finish it.
				ctx2, cancel2 := context.WithCancel(context.Background())
				defer cancel2()
				// after 3 chunks' rows, so that at least one chunk finishes on one or two cores
				part.f = rowCanceller{k: 3 * ChunkRows, failBelow: c.failBelow, calls: new(atomic.Int64), cancel: cancel2}.f
				before := part.Finished
				if s, err := part.Resume(ctx2); s != nil || !errors.Is(err, context.Canceled) || !errors.As(err, new(*PartialSimulationError)) {
					t.Fatalf("second interrupt: %v, %v", s, err)
				}
				if part.Finished <= before {
					t.Errorf("the second interrupt left %d finished, want more than %d", part.Finished, before)
				}
				checkDone(t, part, want)
				got, err := part.Resume(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				sameSimulation(t, "resumed", got, want)
			})
		})
	}
}

// checkDone requires the finished rows of part to be those of the uninterrupted run want:
// every row of Done is want's row of the same input row, and Done holds Finished rows with
// the dropped ones (an error when all of them failed).
func checkDone(t *testing.T, part *PartialSimulationError, want *Simulation) {
	t.Helper()
	done, err := part.Done()
	if err != nil {
		if !errors.Is(err, ErrNonFinite) {
			t.Fatalf("Done: %v", err)
		}
		for _, i := range want.Kept {
			if part.rowDone(i) {
				t.Fatalf("Done: %v, but input row %d finished and succeeded", err, i)
			}
		}
		return
	}
	if got := len(done.Kept) + done.Dropped; got != part.Finished {
		t.Errorf("Done holds %d rows (with the dropped), want %d", got, part.Finished)
	}
	pos := make(map[int]int, len(want.Kept))
	for j, i := range want.Kept {
		pos[i] = j
	}
	_, dx := want.X.Dims()
	for r, i := range done.Kept {
		w, ok := pos[i]
		if !ok || !sameValues(done.X.Slice(r, r+1, 0, dx).(*mat.Dense), want.X.Slice(w, w+1, 0, dx).(*mat.Dense)) {
			t.Fatalf("Done row %d (input row %d) differs from the uninterrupted run's", r, i)
		}
	}
}
