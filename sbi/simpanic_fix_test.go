package sbi

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/internal/safe"
)

// sweep is n parameter rows (i, 0.5): θ₀ is the row's index.
func sweep(n int) *mat.Dense {
	theta := mat.NewDense(n, 2, nil)
	for i := 0; i < n; i++ {
		theta.Set(i, 0, float64(i))
		theta.Set(i, 1, 0.5)
	}
	return theta
}

// countNaNRows returns the number of rows of x holding a NaN.
func countNaNRows(x *mat.Dense) int {
	n, _ := x.Dims()
	bad := 0
	for i := 0; i < n; i++ {
		if !finite(x.RawRowView(i)) {
			bad++
		}
	}
	return bad
}

// TestSimulatePanicInterruptedResumeKeepsPanicked makes rows 0, 23 and 300 of 500 panic, then
// resumes with a context cancelled before any row runs: the rows that panicked must still be
// unfinished and listed (Finished 497, Panicked [0 23 300]), not counted as failed simulations;
// once the simulator is mended, Resume must simulate them, giving 500 rows without NaN (for
// Simulate, equal to the clean run's).
func TestSimulatePanicInterruptedResumeKeepsPanicked(t *testing.T) {
	const n = 500
	theta := sweep(n)
	bad := []int{0, 23, 300}
	sim := panicAt{bad: []float64{0, 23, 300}, broken: new(atomic.Bool)}
	forms := append(panicAtForms(sim, theta), simForm{"SimulateBatchAligned", func() (*Simulation, error) {
		x, err := SimulateBatchAligned(rand.New(rand.NewPCG(3, 4)), sim, theta)
		if err != nil {
			return nil, err
		}
		return keepAll(theta, x), nil
	}})
	for _, form := range forms {
		t.Run(form.name, func(t *testing.T) {
			sim.broken.Store(false)
			clean, err := form.run()
			if err != nil {
				t.Fatal(err)
			}
			sim.broken.Store(true)
			_, err = form.run()
			var part *PartialSimulationError
			if !errors.As(err, &part) {
				t.Fatalf("got %v, want a *PartialSimulationError", err)
			}
			sim.broken.Store(false)
			ctx, stop := context.WithCancel(context.Background())
			stop()
			if _, err := part.Resume(ctx); !errors.Is(err, context.Canceled) {
				t.Fatalf("Resume with a cancelled context: %v, want context.Canceled", err)
			}
			if part.Finished != n-len(bad) || !slices.Equal(part.Panicked, bad) {
				t.Fatalf("after the cancelled Resume: Finished %d, Panicked %v, want %d and %v", part.Finished, part.Panicked, n-len(bad), bad)
			}
			if !strings.Contains(err.Error(), "3 rows panicked before it") {
				t.Errorf("error %q does not say that 3 rows panicked before the interrupt", err)
			}
			all, err := part.Resume(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(all.Kept) != n || all.Dropped != 0 || countNaNRows(all.X) != 0 {
				t.Fatalf("Resume after the mend kept %d rows of %d, dropped %d, %d rows NaN: the rows that panicked were not simulated again",
					len(all.Kept), n, all.Dropped, countNaNRows(all.X))
			}
			if form.name == "Simulate" && !mat.Equal(all.X, clean.X) {
				t.Error("Resume after the mend differs from the clean run")
			}
		})
	}
}

// TestSequentialInterruptedContinueKeepsPanicked continues a run whose round 2 had rows that
// panicked with a context cancelled at once, then once more: the second continuation must
// simulate exactly the rows that panicked, and round 2 drop none.
func TestSequentialInterruptedContinueKeepsPanicked(t *testing.T) {
	const sims = 200
	xo := []float64{0.3, -0.2}
	sim := roundPanic{rows: new(atomic.Int64), after: sims, over: 1.5, mended: new(atomic.Bool)}
	first, err := SequentialContext(context.Background(), newContinueNPE(), sim, xo, continueConfig(2, false, 0, nil))
	if err == nil || first == nil || first.state == nil || first.state.part == nil {
		t.Fatalf("got %v, want round 2 to stop with rows that panicked", err)
	}
	panicked := len(first.state.part.Panicked)
	cfg := continueConfig(2, false, 0, nil)
	cfg.Continue = first
	ctx, stop := context.WithCancel(context.Background())
	stop()
	sim.mended.Store(true)
	again, err := SequentialContext(ctx, first.Estimator, sim, xo, cfg)
	if !errors.Is(err, context.Canceled) || again == nil {
		t.Fatalf("continue with a cancelled context: %v, want context.Canceled and a result", err)
	}
	sim.rows.Store(0)
	cfg.Continue = again
	got, err := SequentialContext(context.Background(), first.Estimator, sim, xo, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rows := sim.rows.Load(); rows != int64(panicked) || got.Rounds[1].Dropped != 0 {
		t.Errorf("the mended continuation simulated %d rows and round 2 dropped %d, want the %d rows that panicked and none dropped",
			rows, got.Rounds[1].Dropped, panicked)
	}
}

// lowPanicsF panics on the rows whose θ₀ is below ChunkRows: on a sorted sweep, exactly the
// first chunk.
func lowPanicsF(rng *rand.Rand, theta []float64) []float64 {
	if theta[0] < ChunkRows {
		panic("θ out of range")
	}
	return noisy(rng, theta)
}

// TestSimulateEarlyStopOnlyWhenSamplesFail runs a simulator that panics on the first ChunkRows
// rows of a sweep of 20 chunks and works on the others, on 1, 2 and 4 cores: the run must not
// stop early (every time, whatever the cores) but simulate the other rows, with Panicked the
// first chunk's rows. A simulator that panics everywhere must stop early with an error that
// says what was tried: the first rows and the rows spread over the rest.
func TestSimulateEarlyStopOnlyWhenSamplesFail(t *testing.T) {
	const n = 20 * ChunkRows
	theta := sweep(n)
	want := make([]int, ChunkRows)
	for i := range want {
		want[i] = i
	}
	for _, procs := range []int{1, 2, 4} {
		for _, form := range []string{"Simulate", "SimulateBatch"} {
			withProcs(procs, func() {
				var err error
				if form == "Simulate" {
					_, err = Simulate(rand.New(rand.NewPCG(1, 1)), lowPanicsF, theta)
				} else {
					_, err = SimulateBatch(rand.New(rand.NewPCG(1, 1)), FuncSimulator(lowPanicsF, 2), theta)
				}
				var part *PartialSimulationError
				if !errors.As(err, &part) || part.Finished != n-ChunkRows || !slices.Equal(part.Panicked, want) {
					t.Errorf("%s on %d cores: %.300v, want a *PartialSimulationError with rows 0 … %d panicked and %d finished", form, procs, err, ChunkRows-1, n-ChunkRows)
				}
			})
		}
	}
	var calls atomic.Int64
	f := func(*rand.Rand, []float64) []float64 { calls.Add(1); panic("broken") }
	_, err := Simulate(rand.New(rand.NewPCG(1, 1)), f, theta)
	for _, want := range []string{"rows 0 … 63 and ", " rows spread over the others", "all panicked", "nothing was simulated"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not say %q", err, want)
		}
	}
	if got := calls.Load(); got != int64(ChunkRows+earlySamples) {
		t.Errorf("the simulator ran %d times, want %d (the first chunk's rows and the samples)", got, ChunkRows+earlySamples)
	}
}

// cancelInside is a batch simulator that cancels its context when it reaches the row whose θ₀
// is at, and from then on panics with the context's error, as a nested MustSimulate does.
type cancelInside struct {
	ctx  context.Context
	stop context.CancelFunc
	at   float64
}

func (cancelInside) DataDim() int { return 2 }
func (s cancelInside) SimulateBatch(rng *rand.Rand, theta, x *mat.Dense) {
	n, _ := theta.Dims()
	for i := 0; i < n; i++ {
		copy(x.RawRowView(i), s.f(rng, theta.RawRowView(i)))
	}
}

func (s cancelInside) f(rng *rand.Rand, theta []float64) []float64 {
	if theta[0] == s.at {
		s.stop()
	}
	if err := s.ctx.Err(); err != nil {
		panic(err)
	}
	return noisy(rng, theta)
}

// TestSimulateInterruptInsideSimulator cancels the context from inside the simulator (in the
// first chunk and later), which then panics with the context's error: on one and two cores,
// Simulate and SimulateBatch must report the interrupt (errors.Is context.Canceled, a
// *PartialSimulationError with no row listed as panicked), not a broken simulator.
func TestSimulateInterruptInsideSimulator(t *testing.T) {
	for _, at := range []float64{10, 300} {
		for _, procs := range []int{1, 2} {
			for _, form := range []string{"Simulate", "SimulateBatch"} {
				withProcs(procs, func() {
					ctx, stop := context.WithCancel(context.Background())
					defer stop()
					sim := cancelInside{ctx: ctx, stop: stop, at: at}
					var err error
					if form == "Simulate" {
						_, err = SimulateContext(ctx, rand.New(rand.NewPCG(1, 1)), sim.f, sweep(1000))
					} else {
						_, err = SimulateBatchContext(ctx, rand.New(rand.NewPCG(1, 1)), sim, sweep(1000))
					}
					var part *PartialSimulationError
					if !errors.Is(err, context.Canceled) || !errors.As(err, &part) || len(part.Panicked) != 0 {
						t.Errorf("%s, cancelled at row %v on %d cores: %.300v, want the interrupt's *PartialSimulationError with no row panicked", form, at, procs, err)
					}
				})
			}
		}
	}
}

var errSolver = errors.New("solver diverged")

// TestSimulatePanicValueKept makes row 3 panic with an error wrapping a sentinel or with a
// runtime error: the returned error must reach the panic value (errors.Is, errors.As) and carry
// the panic's stack, for Simulate and SimulateBatch.
func TestSimulatePanicValueKept(t *testing.T) {
	for _, c := range []struct {
		name  string
		panic func()
		check func(error) bool
	}{
		{"wrapped sentinel", func() { panic(fmt.Errorf("step 7: %w", errSolver)) }, func(err error) bool { return errors.Is(err, errSolver) }},
		{"runtime error", func() { var a []float64; _ = a[len(a)+3] }, func(err error) bool { var re runtime.Error; return errors.As(err, &re) }},
	} {
		f := func(rng *rand.Rand, theta []float64) []float64 {
			if theta[0] == 3 {
				c.panic()
			}
			return noisy(rng, theta)
		}
		for _, form := range []string{"Simulate", "SimulateBatch"} {
			var err error
			if form == "Simulate" {
				_, err = Simulate(rand.New(rand.NewPCG(1, 1)), f, sweep(100))
			} else {
				_, err = SimulateBatch(rand.New(rand.NewPCG(1, 1)), FuncSimulator(f, 2), sweep(100))
			}
			var pe *safe.PanicError
			if !c.check(err) || !errors.As(err, &pe) || !strings.Contains(string(pe.Stack), "TestSimulatePanicValueKept") {
				t.Errorf("%s, %s: %v does not reach the panic value and its stack", form, c.name, err)
			}
		}
	}
}

// TestSimulateWrongLengthRowKept has row 300 of 500 return one value instead of two: Simulate
// must keep the other rows and list row 300 as failed, as SimulateBatch does with FuncSimulator
// (which panics there), naming the row and both lengths.
func TestSimulateWrongLengthRowKept(t *testing.T) {
	f := func(rng *rand.Rand, theta []float64) []float64 {
		if theta[0] == 300 {
			return []float64{1}
		}
		return noisy(rng, theta)
	}
	for _, form := range []string{"Simulate", "SimulateBatch"} {
		var err error
		if form == "Simulate" {
			_, err = Simulate(rand.New(rand.NewPCG(1, 1)), f, sweep(500))
		} else {
			_, err = SimulateBatch(rand.New(rand.NewPCG(1, 1)), FuncSimulator(f, 2), sweep(500))
		}
		var part *PartialSimulationError
		if !errors.As(err, &part) || part.Finished != 499 || !slices.Equal(part.Panicked, []int{300}) {
			t.Errorf("%s: %v, want a *PartialSimulationError with row 300 failed and 499 finished", form, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "row 300") || !strings.Contains(msg, "returned 1 value, expected 2") {
			t.Errorf("%s: error %q does not name row 300 and both lengths", form, msg)
		}
	}
}

// TestSimulateOneRowPanickedMessage interrupts a run (one core, so at the same row every time)
// after a single row panicked: the error must say "1 row panicked", in the singular.
func TestSimulateOneRowPanickedMessage(t *testing.T) {
	withProcs(1, func() {
		ctx, stop := context.WithCancel(context.Background())
		defer stop()
		var calls atomic.Int64
		f := func(rng *rand.Rand, theta []float64) []float64 {
			if calls.Add(1) == 200 {
				stop()
			}
			if theta[0] == 10 {
				panic("bad")
			}
			return noisy(rng, theta)
		}
		_, err := SimulateContext(ctx, rand.New(rand.NewPCG(1, 1)), f, sweep(1000))
		if err == nil || !strings.Contains(err.Error(), "; 1 row panicked before it") {
			t.Errorf("error %v does not say \"1 row panicked before it\"", err)
		}
	})
}
