package sbi

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSimulateBatchAlignedMatchesBatch: SimulateBatchAligned's rows are SimulateBatch's kept
// rows, bit for bit, at their input rows, and the rows SimulateBatch drops are there, holding
// their NaN.
func TestSimulateBatchAlignedMatchesBatch(t *testing.T) {
	const n = 4*ChunkRows + 9
	theta := grid(n)
	sim := cancelAfter{k: -1, calls: new(atomic.Int64)} // NaN where θ₀ > 0.9
	x, err := SimulateBatchAligned(rand.New(rand.NewPCG(4, 5)), sim, theta)
	if err != nil {
		t.Fatal(err)
	}
	s, err := SimulateBatch(rand.New(rand.NewPCG(4, 5)), sim, theta)
	if err != nil {
		t.Fatal(err)
	}
	if s.Dropped == 0 {
		t.Fatal("no row dropped: the test's premise is a batch with failed rows")
	}
	kept := make([]bool, n)
	for k, i := range s.Kept {
		kept[i] = true
		if !mat.Equal(x.Slice(i, i+1, 0, 2), s.X.Slice(k, k+1, 0, 2)) {
			t.Errorf("row %d: aligned %v, SimulateBatch's %v", i, x.RawRowView(i), s.X.RawRowView(k))
		}
	}
	for i := range n {
		if !kept[i] && finite(x.RawRowView(i)) {
			t.Errorf("row %d, dropped by SimulateBatch, is %v in the aligned batch, want its NaN", i, x.RawRowView(i))
		}
	}
}

// TestSimulateBatchAlignedResumeKeepsRows interrupts SimulateBatchAligned after k chunks (one
// core): Done returns every finished row, NaN included, and Resume the whole batch with its
// NaN rows in place, equal to the uninterrupted run (it dropped them, as SimulateBatch's
// Resume does).
func TestSimulateBatchAlignedResumeKeepsRows(t *testing.T) {
	const n, k = 6*ChunkRows + 5, 3
	theta := grid(n)
	want, err := SimulateBatchAligned(rand.New(rand.NewPCG(4, 5)), cancelAfter{k: -1, calls: new(atomic.Int64)}, theta)
	if err != nil {
		t.Fatal(err)
	}
	withProcs(1, func() {
		sim, ctx := newCancelAfter(k)
		x, err := SimulateBatchAlignedContext(ctx, rand.New(rand.NewPCG(4, 5)), sim, theta)
		checkAlignedPartial(t, x, err, want, theta)
	})
}

// TestSimulateAlignedResumeKeepsRows is TestSimulateBatchAlignedResumeKeepsRows for the
// per-row SimulateAligned: interrupted after k chunks (one core), Done returns every finished
// row, NaN rows and nil rows (NaN throughout) included, and Resume the whole batch equal to the
// uninterrupted run, rows in place. Both dropped those rows, as Simulate's do.
func TestSimulateAlignedResumeKeepsRows(t *testing.T) {
	const n, k = 6*ChunkRows + 5, 3
	theta := grid(n)
	calls := new(atomic.Int64)
	var cancel context.CancelFunc
	f := func(rng *rand.Rand, th []float64) []float64 {
		if calls.Add(1) == k*ChunkRows && cancel != nil {
			cancel()
		}
		switch {
		case th[0] > 0.9:
			return nil // failed: NaN throughout in the aligned output
		case th[0] > 0.8:
			return []float64{th[0] + rng.NormFloat64(), math.NaN()} // padding
		}
		return []float64{th[0] + rng.NormFloat64(), th[1]}
	}
	want, err := SimulateAligned(rand.New(rand.NewPCG(4, 5)), f, theta)
	if err != nil {
		t.Fatal(err)
	}
	nonFinite := 0
	for i := range n {
		if !finite(want.RawRowView(i)) {
			nonFinite++
		}
	}
	if nonFinite == 0 {
		t.Fatal("no row holds NaN: the test's premise is a batch with padded and failed rows")
	}
	withProcs(1, func() {
		calls.Store(0)
		var ctx context.Context
		ctx, cancel = context.WithCancel(context.Background())
		defer cancel()
		x, err := simulateRows(ctx, rand.New(rand.NewPCG(4, 5)), f, theta, true)
		checkAlignedPartial(t, x, err, want, theta)
	})
}

// checkAlignedPartial checks what an interrupted aligned simulation returned (x, err): no rows
// and a *PartialSimulationError whose Done holds every finished row, NaN rows included, equal
// to the uninterrupted run want, and whose Resume gives the whole batch equal to want, rows in
// place.
func checkAlignedPartial(t *testing.T, x *mat.Dense, err error, want, theta *mat.Dense) {
	t.Helper()
	n, dx := want.Dims()
	var part *PartialSimulationError
	if x != nil || !errors.As(err, &part) {
		t.Fatalf("interrupted: %v, %v; want no rows and a *PartialSimulationError", x, err)
	}
	done, err := part.Done()
	if err != nil {
		t.Fatal(err)
	}
	if len(done.Kept) != part.Finished || done.Dropped != 0 {
		t.Errorf("Done holds %d rows (%d dropped), want all %d finished", len(done.Kept), done.Dropped, part.Finished)
	}
	for r, i := range done.Kept {
		if !sameValues(done.X.Slice(r, r+1, 0, dx).(*mat.Dense), want.Slice(i, i+1, 0, dx).(*mat.Dense)) {
			t.Fatalf("Done row %d (input row %d) is %v, want %v", r, i, done.X.RawRowView(r), want.RawRowView(i))
		}
	}
	got, err := part.Resume(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := got.X.Dims(); r != n || got.Dropped != 0 || len(got.Kept) != n || !sameValues(got.X, want) || !mat.Equal(got.Theta, theta) {
		t.Fatalf("resumed: %d rows (%d dropped, %d kept), want all %d equal to the uninterrupted aligned run, NaN in place", r, got.Dropped, len(got.Kept), n)
	}
}
