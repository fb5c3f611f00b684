package sbi

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// panicAt is a simulator, noisy, that panics on the rows whose θ₀ is in bad while broken is
// set: a SimFunc (f) or a batch Simulator.
type panicAt struct {
	bad    []float64
	broken *atomic.Bool
}

func (p panicAt) f(rng *rand.Rand, theta []float64) []float64 {
	if p.broken.Load() && slices.Contains(p.bad, theta[0]) {
		var m map[string]int
		m["x"] = 1 // assignment to entry in nil map
	}
	return noisy(rng, theta)
}

func (panicAt) DataDim() int { return 2 }
func (p panicAt) SimulateBatch(rng *rand.Rand, theta, x *mat.Dense) {
	n, _ := theta.Dims()
	for i := 0; i < n; i++ {
		copy(x.RawRowView(i), p.f(rng, theta.RawRowView(i)))
	}
}

// simForm is a simulation call of a test, named.
type simForm struct {
	name string
	run  func() (*Simulation, error)
}

// panicAtForms returns Simulate and SimulateBatch of sim on theta, with the same generator.
func panicAtForms(sim panicAt, theta *mat.Dense) []simForm {
	return []simForm{
		{"Simulate", func() (*Simulation, error) { return Simulate(rand.New(rand.NewPCG(3, 4)), sim.f, theta) }},
		{"SimulateBatch", func() (*Simulation, error) { return SimulateBatch(rand.New(rand.NewPCG(3, 4)), sim, theta) }},
	}
}

// TestSimulatePanicKeepsRows makes rows 0, 23 and 300 of 500 panic, for Simulate and
// SimulateBatch on one and two cores: the result must be a *PartialSimulationError naming row 0,
// its θ and the panic, saying how to take the rows, with Panicked = [0 23 300], 497 rows
// finished, Done equal to the clean run's rows (for the batch form, outside the chunks that
// panicked, which are run again row by row), and, once the simulator is mended, Resume
// returning all 500 rows (Simulate: equal to the clean run's).
func TestSimulatePanicKeepsRows(t *testing.T) {
	const n = 500
	theta := sweep(n)
	bad := []int{0, 23, 300}
	sim := panicAt{bad: []float64{0, 23, 300}, broken: new(atomic.Bool)}
	for _, form := range panicAtForms(sim, theta) {
		for _, procs := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s on %d cores", form.name, procs), func(t *testing.T) {
				withProcs(procs, func() {
					sim.broken.Store(false)
					clean, err := form.run()
					if err != nil {
						t.Fatal(err)
					}
					sim.broken.Store(true)
					s, err := form.run()
					var part *PartialSimulationError
					if s != nil || !errors.As(err, &part) {
						t.Fatalf("got %v and %v, want no Simulation and a *PartialSimulationError", s, err)
					}
					msg := err.Error()
					for _, want := range []string{"row 0 (θ = [0 0.5]) panicked", "assignment to entry in nil map", "3 rows panicked", "497 of 500 simulations finished", "part.Done()"} {
						if !strings.Contains(msg, want) {
							t.Errorf("error %q does not say %q", msg, want)
						}
					}
					if !slices.Equal(part.Panicked, bad) || part.Finished != n-len(bad) {
						t.Errorf("Panicked %v, Finished %d, want %v and %d", part.Panicked, part.Finished, bad, n-len(bad))
					}
					done, err := part.Done()
					if err != nil {
						t.Fatal(err)
					}
					if len(done.Kept) != n-len(bad) || done.Dropped != 0 {
						t.Fatalf("Done kept %d rows and dropped %d, want %d and 0", len(done.Kept), done.Dropped, n-len(bad))
					}
					for k, i := range done.Kept {
						if slices.Contains(bad, i) {
							t.Fatalf("Done keeps row %d, which panicked", i)
						}
						chunkPanicked := slices.ContainsFunc(bad, func(b int) bool { return b/ChunkRows == i/ChunkRows })
						if (form.name == "Simulate" || !chunkPanicked) && !slices.Equal(done.X.RawRowView(k), clean.X.RawRowView(i)) {
							t.Fatalf("row %d: Done %v, the clean run %v", i, done.X.RawRowView(k), clean.X.RawRowView(i))
						}
					}
					if _, err := part.Resume(context.Background()); !errors.As(err, &part) || !slices.Equal(part.Panicked, bad) {
						t.Fatalf("Resume with the simulator still panicking: %v, want the rows to panic again", err)
					}
					sim.broken.Store(false)
					all, err := part.Resume(context.Background())
					if err != nil {
						t.Fatal(err)
					}
					if len(all.Kept) != n {
						t.Fatalf("Resume after the mend kept %d rows, want %d", len(all.Kept), n)
					}
					if form.name == "Simulate" && !mat.Equal(all.X, clean.X) {
						t.Error("Resume after the mend differs from the clean run")
					}
				})
			})
		}
	}
}

// TestSimulatePanicEverywhereStops gives Simulate and SimulateBatch a simulator that panics on
// every row: the run must stop after about ChunkRows rows, not run all of them, and return the
// panic's error, saying that nothing was simulated.
func TestSimulatePanicEverywhereStops(t *testing.T) {
	const n = 20 * ChunkRows
	var calls atomic.Int64
	f := func(*rand.Rand, []float64) []float64 { calls.Add(1); panic("broken") }
	for _, procs := range []int{1, 2} {
		withProcs(procs, func() {
			calls.Store(0)
			_, err := Simulate(rand.New(rand.NewPCG(1, 1)), f, grid(n))
			var part *PartialSimulationError
			if err == nil || errors.As(err, &part) || !strings.Contains(err.Error(), "row 0") || !strings.Contains(err.Error(), "nothing was simulated") {
				t.Errorf("%d cores: error %v, want row 0's panic saying nothing was simulated", procs, err)
			}
			if c := calls.Load(); c > int64((procs+1)*ChunkRows) {
				t.Errorf("%d cores: the simulator ran %d times of %d, want the run stopped after about %d", procs, c, n, ChunkRows)
			}
			calls.Store(0)
			_, err = SimulateBatch(rand.New(rand.NewPCG(1, 1)), alwaysPanics{&calls}, grid(n))
			if err == nil || errors.As(err, &part) || !strings.Contains(err.Error(), "row 0") || !strings.Contains(err.Error(), "nothing was simulated") {
				t.Errorf("%d cores, batch: error %v, want row 0's panic saying nothing was simulated", procs, err)
			}
			if c := calls.Load(); c > int64(2*(procs+1)*ChunkRows) { // each chunk's call, then each row's
				t.Errorf("%d cores, batch: the simulator was called %d times for %d rows, want the run stopped after about %d", procs, c, n, 2*ChunkRows)
			}
		})
	}
}

// alwaysPanics is a batch Simulator that panics on every call, counting them.
type alwaysPanics struct{ calls *atomic.Int64 }

func (alwaysPanics) DataDim() int { return 2 }
func (a alwaysPanics) SimulateBatch(*rand.Rand, *mat.Dense, *mat.Dense) {
	a.calls.Add(1)
	panic("broken")
}

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
