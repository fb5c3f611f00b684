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

// TestSimulatePanicKeepsRows makes rows 0, 23 and 300 of 500 panic, for Simulate and
// SimulateBatch on one and two cores: the result must be a *PartialSimulationError naming row 0,
// its θ and the panic, saying how to take the rows, with Panicked = [0 23 300], 497 rows
// finished, Done equal to the clean run's rows (for the batch form, outside the chunks that
// panicked, which are run again row by row), and, once the simulator is mended, Resume
// returning all 500 rows (Simulate: equal to the clean run's).
func TestSimulatePanicKeepsRows(t *testing.T) {
	const n = 500
	theta := mat.NewDense(n, 2, nil)
	for i := 0; i < n; i++ {
		theta.Set(i, 0, float64(i))
		theta.Set(i, 1, 0.5)
	}
	bad := []int{0, 23, 300}
	sim := panicAt{bad: []float64{0, 23, 300}, broken: new(atomic.Bool)}
	forms := []struct {
		name string
		run  func() (*Simulation, error)
	}{
		{"Simulate", func() (*Simulation, error) { return Simulate(rand.New(rand.NewPCG(3, 4)), sim.f, theta) }},
		{"SimulateBatch", func() (*Simulation, error) { return SimulateBatch(rand.New(rand.NewPCG(3, 4)), sim, theta) }},
	}
	for _, form := range forms {
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
