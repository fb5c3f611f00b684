package sbi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/internal/progresstest"
)

// cancelAfter is batchNoisy, failing (NaN) where θ₀ > 0.9, that cancels its context as its
// chunk after the k-th starts: a deterministic interrupt in the middle of a batch, after k
// chunks finished (the chunk the interrupt reached is not kept, as an interpreted simulator
// stops midway there).
type cancelAfter struct {
	k      int64
	calls  *atomic.Int64
	cancel context.CancelFunc
}

func (cancelAfter) DataDim() int { return 2 }

func (c cancelAfter) SimulateBatch(rng *rand.Rand, theta, x *mat.Dense) {
	if c.calls.Add(1) == c.k+1 {
		c.cancel()
	}
	batchNoisy{}.SimulateBatch(rng, theta, x)
	n, _ := theta.Dims()
	for i := 0; i < n; i++ {
		if theta.At(i, 0) > 0.9 {
			fillNaN(x.RawRowView(i))
		}
	}
}

// newCancelAfter returns a simulator that cancels the returned context after k chunks.
func newCancelAfter(k int64) (cancelAfter, context.Context) {
	ctx, cancel := context.WithCancel(context.Background())
	return cancelAfter{k: k, calls: new(atomic.Int64), cancel: cancel}, ctx
}

func sameSimulation(t *testing.T, what string, got, want *Simulation) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: nil simulation", what)
	}
	if !mat.Equal(got.Theta, want.Theta) || !mat.Equal(got.X, want.X) || got.Dropped != want.Dropped || len(got.Kept) != len(want.Kept) {
		t.Fatalf("%s: %d rows (%d dropped), want %d (%d dropped) equal to the uninterrupted run's", what, len(got.Kept), got.Dropped, len(want.Kept), want.Dropped)
	}
	for i := range want.Kept {
		if got.Kept[i] != want.Kept[i] {
			t.Fatalf("%s: Kept[%d] = %d, want %d", what, i, got.Kept[i], want.Kept[i])
		}
	}
}

// TestSimulateBatchInterruptKeepsFinished interrupts SimulateBatch after k chunks (one core,
// so that exactly the first k chunks finish) and requires: no Simulation (a short batch would
// pass for the whole), an error wrapping context.Canceled that is a *PartialSimulationError
// counting k·ChunkRows of n rows, Done equal to those rows of an uninterrupted run, and Resume
// (interrupted once more, then to the end) equal to the uninterrupted run bit for bit; with
// two cores only the equalities are required, the chunks done depending on the schedule.
func TestSimulateBatchInterruptKeepsFinished(t *testing.T) {
	const n = 10*ChunkRows + 17
	theta := grid(n)
	want, err := SimulateBatch(rand.New(rand.NewPCG(4, 5)), cancelAfter{k: -1, calls: new(atomic.Int64)}, theta)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		procs int
		k     int64
	}{{1, 3}, {1, 1}, {2, 4}} {
		withProcs(c.procs, func() {
			sim, ctx := newCancelAfter(c.k)
			s, err := SimulateBatchContext(ctx, rand.New(rand.NewPCG(4, 5)), sim, theta)
			if s != nil {
				t.Fatalf("procs %d, k %d: an interrupted batch returned a Simulation of %d rows beside its error", c.procs, c.k, len(s.Kept))
			}
			var part *PartialSimulationError
			if !errors.Is(err, context.Canceled) || !errors.As(err, &part) {
				t.Fatalf("procs %d, k %d: error %v, want a *PartialSimulationError wrapping context.Canceled", c.procs, c.k, err)
			}
			if part.Total != n || (c.procs == 1 && part.Finished != int(c.k)*ChunkRows) {
				t.Errorf("procs %d, k %d: %d of %d finished, want %d of %d", c.procs, c.k, part.Finished, part.Total, int(c.k)*ChunkRows, n)
			}
			done, err := part.Done()
			if err != nil {
				t.Fatal(err)
			}
			if got := len(done.Kept) + done.Dropped; got != part.Finished {
				t.Errorf("Done holds %d rows (with the dropped), want %d", got, part.Finished)
			}
			for r, i := range done.Kept {
				w := -1
				for j, wi := range want.Kept {
					if wi == i {
						w = j
					}
				}
				if w < 0 || !mat.Equal(done.X.Slice(r, r+1, 0, 2), want.X.Slice(w, w+1, 0, 2)) || !mat.Equal(done.Theta.Slice(r, r+1, 0, 2), theta.Slice(i, i+1, 0, 2)) {
					t.Fatalf("Done row %d (input row %d) differs from the uninterrupted run's", r, i)
				}
			}
			// Interrupt the resumed run once more, then finish it.
			ctx2, cancel2 := context.WithCancel(context.Background())
			part.sim = cancelAfter{k: 2, calls: new(atomic.Int64), cancel: cancel2}
			if s, err := part.Resume(ctx2); s != nil || !errors.Is(err, context.Canceled) || !errors.As(err, new(*PartialSimulationError)) {
				t.Fatalf("second interrupt: %v, %v", s, err)
			}
			if c.procs == 1 && part.Finished != int(c.k+2)*ChunkRows {
				t.Errorf("after the second interrupt %d finished, want %d", part.Finished, int(c.k+2)*ChunkRows)
			}
			got, err := part.Resume(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			sameSimulation(t, "resumed", got, want)
			if _, err := part.Resume(context.Background()); err == nil {
				t.Error("a second Resume of a finished batch gave no error")
			}
		})
	}
}

// TestSimulateIntoInterrupt interrupts SimulateInto after 2 chunks: the finished rows of x
// must be the uninterrupted run's, the others NaN (not zeros that pass for data), and Resume
// must fill x to equal the uninterrupted run's output.
func TestSimulateIntoInterrupt(t *testing.T) {
	const n = 5 * ChunkRows
	theta := grid(n)
	want := mat.NewDense(n, 2, nil)
	if err := SimulateIntoContext(context.Background(), rand.New(rand.NewPCG(8, 9)), cancelAfter{k: -1, calls: new(atomic.Int64)}, theta, want); err != nil {
		t.Fatal(err)
	}
	withProcs(1, func() {
		sim, ctx := newCancelAfter(2)
		x := mat.NewDense(n, 2, nil)
		err := SimulateIntoContext(ctx, rand.New(rand.NewPCG(8, 9)), sim, theta, x)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want one wrapping context.Canceled", err)
		}
		for i := 0; i < n; i++ {
			row := x.RawRowView(i)
			if i < 2*ChunkRows && theta.At(i, 0) <= 0.9 && !mat.Equal(x.Slice(i, i+1, 0, 2), want.Slice(i, i+1, 0, 2)) {
				t.Fatalf("finished row %d is %v, want %v", i, row, want.RawRowView(i))
			}
			if i >= 2*ChunkRows && !math.IsNaN(row[0]) {
				t.Fatalf("row %d was not simulated and holds %v, want NaN", i, row)
			}
		}
		var part *PartialSimulationError
		if !errors.As(err, &part) {
			t.Fatalf("error %v, want a *PartialSimulationError", err)
		}
		part.sim = cancelAfter{k: -1, calls: new(atomic.Int64)}
		if _, err := part.Resume(context.Background()); err != nil {
			t.Fatal(err)
		}
		if !sameValues(x, want) {
			t.Error("x after Resume differs from the uninterrupted run's output")
		}
	})
}

// sameValues reports whether a and b hold the same values, NaN in the same places.
func sameValues(a, b *mat.Dense) bool {
	ra, ca := a.Dims()
	for i := 0; i < ra; i++ {
		for j := 0; j < ca; j++ {
			if u, v := a.At(i, j), b.At(i, j); u != v && !(math.IsNaN(u) && math.IsNaN(v)) {
				return false
			}
		}
	}
	return true
}

// TestSimulateInterruptLastProgress: the last progress message of an interrupted simulation
// says how many simulations finished and where they are kept, or that none finished: a cell
// whose MustSimulateBatch an interrupt stopped shows this line, not the error, which comes
// after the interrupt has ended the cell. One core, so that exactly the first k chunks finish.
func TestSimulateInterruptLastProgress(t *testing.T) {
	const n = 5 * ChunkRows
	theta := grid(n)
	for _, c := range []struct {
		k    int64 // chunks finished; 0 cancels before the first starts
		want string
	}{
		{0, fmt.Sprintf("stopped by interrupt before any of %d simulations finished; nothing kept", n)},
		{2, fmt.Sprintf("stopped by interrupt after %d of %d simulations; they are kept in the returned error (*PartialSimulationError: Done, Resume)", 2*ChunkRows, n)},
	} {
		withProcs(1, func() {
			last := progresstest.Record(t).Last
			sim, ctx := newCancelAfter(c.k)
			if c.k == 0 {
				sim.cancel()
			}
			_, err := SimulateBatchContext(ctx, rand.New(rand.NewPCG(4, 5)), sim, theta)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("k %d: error %v, want one wrapping context.Canceled", c.k, err)
			}
			if ev := last(); !ev.Finished || !strings.HasPrefix(ev.Message, c.want) {
				t.Errorf("k %d: the progress bar's last event %+v, want a finished one whose message begins %q", c.k, ev, c.want)
			}
		})
	}
}
