package sbi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/dist"
)

// noisy is a per-row simulator: x = (θ₀ + z₁, θ₀·θ₁ + z₂) with z ~ N(0,1).
func noisy(rng *rand.Rand, theta []float64) []float64 {
	return []float64{theta[0] + rng.NormFloat64(), theta[0]*theta[1] + rng.NormFloat64()}
}

// batchNoisy is the same model as a batch Simulator.
type batchNoisy struct{}

func (batchNoisy) DataDim() int { return 2 }
func (batchNoisy) SimulateBatch(rng *rand.Rand, theta, x *mat.Dense) {
	n, _ := theta.Dims()
	for i := 0; i < n; i++ {
		copy(x.RawRowView(i), noisy(rng, theta.RawRowView(i)))
	}
}

func grid(n int) *mat.Dense {
	theta := mat.NewDense(n, 2, nil)
	for i := 0; i < n; i++ {
		theta.Set(i, 0, float64(i%17)/17)
		theta.Set(i, 1, float64(i%5))
	}
	return theta
}

func withProcs(p int, f func()) {
	old := runtime.GOMAXPROCS(p)
	defer runtime.GOMAXPROCS(old)
	f()
}

// TestSimulateDeterministicAcrossCores runs the same simulation with 1 and 2 (and 3) cores and
// requires identical output, for a per-row function and for a batch simulator.
func TestSimulateDeterministicAcrossCores(t *testing.T) {
	theta := grid(1000)
	run := func(p int, batch bool) *mat.Dense {
		var sim *Simulation
		var err error
		withProcs(p, func() {
			rng := rand.New(rand.NewPCG(7, 8))
			if batch {
				sim, err = SimulateBatch(rng, batchNoisy{}, theta)
			} else {
				sim, err = Simulate(rng, noisy, theta)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return sim.X
	}
	for _, batch := range []bool{false, true} {
		one := run(1, batch)
		for _, p := range []int{2, 3} {
			if !mat.Equal(one, run(p, batch)) {
				t.Errorf("batch=%v: output with GOMAXPROCS=%d differs from GOMAXPROCS=1", batch, p)
			}
		}
	}
	// Different seeds give different data.
	a, _ := Simulate(rand.New(rand.NewPCG(1, 1)), noisy, theta)
	b, _ := Simulate(rand.New(rand.NewPCG(1, 2)), noisy, theta)
	if mat.Equal(a.X, b.X) {
		t.Error("different seeds gave the same simulations")
	}
}

// TestSimulateStatistics checks that the per-row streams give N(0,1) noise: the mean and variance
// of x₀ − θ₀ over n rows must lie within 5 standard errors (1/√n and √(2/n)) of 0 and 1, and the
// lag-1 correlation between neighbouring rows (which use neighbouring streams) within 5/√n of 0.
func TestSimulateStatistics(t *testing.T) {
	const n = 20000
	theta := grid(n)
	for _, batch := range []bool{false, true} {
		var sim *Simulation
		var err error
		if batch {
			sim, err = SimulateBatch(rand.New(rand.NewPCG(3, 3)), batchNoisy{}, theta)
		} else {
			sim, err = Simulate(rand.New(rand.NewPCG(3, 3)), noisy, theta)
		}
		if err != nil {
			t.Fatal(err)
		}
		z := make([]float64, n)
		var m, v, lag float64
		for i := range z {
			z[i] = sim.X.At(i, 0) - theta.At(i, 0)
			m += z[i] / n
		}
		for i := range z {
			v += (z[i] - m) * (z[i] - m) / n
			if i > 0 {
				lag += z[i] * z[i-1] / n
			}
		}
		if math.Abs(m) > 5/math.Sqrt(n) || math.Abs(v-1) > 5*math.Sqrt(2.0/n) || math.Abs(lag) > 5/math.Sqrt(n) {
			t.Errorf("batch=%v: noise mean %v var %v lag-1 %v", batch, m, v, lag)
		}
	}
}

func TestSimulateDropsInvalidRows(t *testing.T) {
	theta := grid(300)
	f := func(rng *rand.Rand, th []float64) []float64 {
		x := noisy(rng, th)
		switch {
		case th[1] == 1:
			x[0] = math.NaN()
		case th[1] == 2:
			x[1] = math.Inf(-1)
		case th[1] == 3:
			return nil
		}
		return x
	}
	sim, err := Simulate(rand.New(rand.NewPCG(1, 1)), f, theta)
	if err != nil {
		t.Fatal(err)
	}
	if sim.Dropped != 180 || len(sim.Kept) != 120 {
		t.Fatalf("dropped %d kept %d, want 180 and 120", sim.Dropped, len(sim.Kept))
	}
	for k, i := range sim.Kept {
		if th := theta.RawRowView(i); th[1] != 0 && th[1] != 4 {
			t.Fatalf("kept row %d has θ₁ = %v", i, th[1])
		}
		if sim.Theta.At(k, 0) != theta.At(i, 0) || sim.Theta.At(k, 1) != theta.At(i, 1) {
			t.Fatalf("kept θ row %d does not match input row %d", k, i)
		}
	}
	// A first row that fails must not hide the data dimension.
	g := func(rng *rand.Rand, th []float64) []float64 {
		if th[0] == 0 {
			return nil
		}
		return noisy(rng, th)
	}
	sim, err = Simulate(rand.New(rand.NewPCG(1, 1)), g, theta)
	if err != nil || sim.Dropped != 18 {
		t.Fatalf("failed first row: %v, dropped %v", err, sim)
	}
	allBad := func(*rand.Rand, []float64) []float64 { return []float64{math.NaN()} }
	if _, err := Simulate(rand.New(rand.NewPCG(1, 1)), allBad, theta); err == nil || !strings.Contains(err.Error(), "all 300") {
		t.Errorf("all rows NaN: error %v", err)
	}
}

// TestSimulateAlignedKeepsRows: SimulateAligned returns every row where theta has it, the
// output as the SimFunc returned it (NaN and ±Inf kept) and NaN throughout for nil, and the
// rows Simulate keeps equal Simulate's to the bit (the same random stream per row).
func TestSimulateAlignedKeepsRows(t *testing.T) {
	theta := grid(300)
	f := func(rng *rand.Rand, th []float64) []float64 {
		x := noisy(rng, th)
		switch {
		case th[1] == 1:
			x[0] = math.NaN()
		case th[1] == 2:
			x[1] = math.Inf(-1)
		case th[1] == 3:
			return nil
		}
		return x
	}
	x, err := SimulateAligned(rand.New(rand.NewPCG(1, 1)), f, theta)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := Simulate(rand.New(rand.NewPCG(1, 1)), f, theta)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := x.Dims(); r != 300 || c != 2 {
		t.Fatalf("SimulateAligned gave %d×%d, want 300×2", r, c)
	}
	for i := range 300 {
		row, want := x.RawRowView(i), "finite"
		switch theta.At(i, 1) {
		case 1:
			want = "NaN first"
		case 2:
			want = "-Inf second"
		case 3:
			want = "all NaN"
		}
		got := "finite"
		switch {
		case math.IsNaN(row[0]) && math.IsNaN(row[1]):
			got = "all NaN"
		case math.IsNaN(row[0]) && !math.IsInf(row[1], 0):
			got = "NaN first"
		case math.IsInf(row[1], -1) && !math.IsNaN(row[0]):
			got = "-Inf second"
		case math.IsNaN(row[0]) || math.IsNaN(row[1]) || math.IsInf(row[0], 0) || math.IsInf(row[1], 0):
			got = fmt.Sprint(row)
		}
		if got != want {
			t.Fatalf("row %d (θ = %v) is %v, want %s", i, theta.RawRowView(i), row, want)
		}
	}
	for k, i := range sim.Kept {
		if a, b := x.RawRowView(i), sim.X.RawRowView(k); a[0] != b[0] || a[1] != b[1] {
			t.Fatalf("row %d: SimulateAligned %v, Simulate %v", i, a, b)
		}
	}
	none := func(*rand.Rand, []float64) []float64 { return nil }
	if _, err := SimulateAligned(rand.New(rand.NewPCG(1, 1)), none, theta); err == nil || !strings.Contains(err.Error(), "all 300") {
		t.Errorf("every row nil: error %v", err)
	}
}

type panicky struct{ row float64 }

func (panicky) DataDim() int { return 2 }
func (p panicky) SimulateBatch(rng *rand.Rand, theta, x *mat.Dense) {
	n, _ := theta.Dims()
	for i := 0; i < n; i++ {
		if theta.At(i, 0) == p.row {
			var s []float64
			_ = s[3] // index out of range
		}
		copy(x.RawRowView(i), noisy(rng, theta.RawRowView(i)))
	}
}

func TestSimulatePanicBecomesError(t *testing.T) {
	theta := mat.NewDense(500, 2, nil)
	for i := 0; i < 500; i++ {
		theta.Set(i, 0, float64(i))
	}
	f := func(rng *rand.Rand, th []float64) []float64 {
		if th[0] == 321 {
			panic("bad parameter")
		}
		return noisy(rng, th)
	}
	_, err := Simulate(rand.New(rand.NewPCG(1, 1)), f, theta)
	if err == nil || !strings.Contains(err.Error(), "row 321") || !strings.Contains(err.Error(), "bad parameter") {
		t.Errorf("per-row panic: error %v", err)
	}
	_, err = SimulateBatch(rand.New(rand.NewPCG(1, 1)), panicky{row: 77}, theta)
	if err == nil || !strings.Contains(err.Error(), "row 77") || !strings.Contains(err.Error(), "index out of range") {
		t.Errorf("batch panic: error %v", err)
	}
	wrongLen := func(rng *rand.Rand, th []float64) []float64 {
		if th[0] == 10 {
			return []float64{1}
		}
		return noisy(rng, th)
	}
	var part *PartialSimulationError
	if _, err := Simulate(rand.New(rand.NewPCG(1, 1)), wrongLen, theta); !errors.As(err, &part) || !slices.Equal(part.Panicked, []int{10}) ||
		!strings.Contains(err.Error(), "row 10 (θ = [10 0]) returned 1 value, expected 2") {
		t.Errorf("wrong length: error %v, want row 10 failed, the others kept", err)
	}
}

func TestSimulateCancelAndProgress(t *testing.T) {
	var mu sync.Mutex
	var events []runenv.ProgressEvent
	runenv.SetProgress(func(e runenv.ProgressEvent) { mu.Lock(); events = append(events, e); mu.Unlock() })
	defer runenv.SetProgress(nil)
	theta := grid(1000)
	if _, err := Simulate(rand.New(rand.NewPCG(1, 1)), noisy, theta); err != nil {
		t.Fatal(err)
	}
	if len(events) < 2 {
		t.Fatalf("%d progress events reached the host's sink, want at least the first and the last", len(events))
	}
	if first := events[0]; first.Finished || first.Done != 0 || first.Total != 1000 || first.Label != "simulate" {
		t.Errorf("first progress event %+v", first)
	}
	last := events[len(events)-1]
	if !last.Finished || last.Done != 1000 || last.Total != 1000 || last.Label != "simulate" {
		t.Errorf("last progress event %+v", last)
	}
	runenv.SetProgress(nil) // the host turns progress off
	n := len(events)
	if _, err := Simulate(rand.New(rand.NewPCG(1, 1)), noisy, grid(100)); err != nil {
		t.Fatal(err)
	}
	if len(events) != n {
		t.Errorf("%d progress events after the host turned progress off", len(events)-n)
	}

	ctx, cancel := context.WithCancel(context.Background())
	runenv.SetContext(ctx)
	defer runenv.SetContext(nil)
	calls := 0
	var cmu sync.Mutex
	f := func(rng *rand.Rand, th []float64) []float64 {
		cmu.Lock()
		calls++
		if calls == 100 {
			cancel()
		}
		cmu.Unlock()
		return noisy(rng, th)
	}
	_, err := Simulate(rand.New(rand.NewPCG(1, 1)), f, grid(100000))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: error %v", err)
	}
	if calls > 100+2*ChunkRows*runtime.GOMAXPROCS(0) {
		t.Errorf("%d calls after cancelling at call 100", calls)
	}
	_, err = SimulateBatch(rand.New(rand.NewPCG(1, 1)), batchNoisy{}, grid(1000))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("batch run under a cancelled context: error %v", err)
	}
}

func ExampleSimulate() {
	// A simulator written as a plain function, as in a notebook cell.
	sim := func(rng *rand.Rand, theta []float64) []float64 {
		if theta[0] > 0.9 {
			return []float64{math.NaN()} // a failed simulation: dropped and counted
		}
		return []float64{theta[0] + 0.1*rng.NormFloat64()}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	theta := dist.NewUniformCube(0, 1, 1).Sample(rng, 1000)
	res, err := Simulate(rng, sim, theta)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.X.RawMatrix().Rows+res.Dropped, res.Dropped > 0)
	// Output: 1000 true
}

// TestSimulateInterpretedFunction runs a simulator defined in the yaegi interpreter, as in a
// notebook cell: the runner calls it from several goroutines, the output is the same with 1 and
// 2 cores as that of the same function compiled, and its panic becomes an error naming the row.
func TestSimulateInterpretedFunction(t *testing.T) {
	const src = `func sim(rng *rand.Rand, theta []float64) []float64 {
	if theta[0] < 0 {
		panic("negative θ")
	}
	return []float64{theta[0] + rng.NormFloat64(), theta[0]*theta[1] + rng.NormFloat64()}
}`
	in := interp.New(interp.Options{})
	if err := in.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Eval(`import "math/rand/v2"`); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Eval(src); err != nil {
		t.Fatal(err)
	}
	v, err := in.Eval("sim")
	if err != nil {
		t.Fatal(err)
	}
	f, ok := v.Interface().(func(*rand.Rand, []float64) []float64)
	if !ok {
		t.Fatalf("interpreted sim has type %T", v.Interface())
	}
	theta := grid(500)
	want, err := Simulate(rand.New(rand.NewPCG(4, 4)), noisy, theta)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []int{1, 2} {
		var got *Simulation
		withProcs(p, func() { got, err = Simulate(rand.New(rand.NewPCG(4, 4)), f, theta) })
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(got.X, want.X) {
			t.Errorf("GOMAXPROCS=%d: interpreted simulator differs from the compiled one", p)
		}
	}
	theta.Set(222, 0, -1)
	if _, err := Simulate(rand.New(rand.NewPCG(4, 4)), f, theta); err == nil || !strings.Contains(err.Error(), "row 222") {
		t.Errorf("interpreted panic: error %v", err)
	}
}

// wide is a batch simulator of dim zeros per row: its output dominates any other allocation.
type wide struct{ dim int }

func (w wide) DataDim() int                                    { return w.dim }
func (w wide) SimulateBatch(_ *rand.Rand, theta, x *mat.Dense) {}

// TestSimulateBatchMemory checks that a simulation in which no row is dropped holds its output
// once: SimulateBatch allocates one n×DataDim matrix for x, not a second copy of it (which
// doubled the peak memory of large held-out sets). The limit, 1.5× the size of x, leaves room
// for θ and the bookkeeping; a copy would need 2×.
func TestSimulateBatchMemory(t *testing.T) {
	const n, dim = 2000, 1000
	theta := grid(n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	sim, err := SimulateBatch(rand.New(rand.NewPCG(1, 1)), wide{dim}, theta)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := sim.X.Dims(); r != n || c != dim {
		t.Fatalf("x is %d×%d, want %d×%d", r, c, n, dim)
	}
	size := float64(n * dim * 8)
	if got := float64(after.TotalAlloc - before.TotalAlloc); got > 1.5*size {
		t.Errorf("SimulateBatch allocated %.1f MB for an output of %.1f MB, want at most 1.5×", got/1e6, size/1e6)
	}
	// DropInvalid still copies what it is given: the caller keeps its matrices.
	x := mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6})
	kept, err := DropInvalid(grid(3), x)
	if err != nil {
		t.Fatal(err)
	}
	x.Set(0, 0, -1)
	if kept.X.At(0, 0) != 1 {
		t.Errorf("DropInvalid's result changed with its argument: %v", kept.X.At(0, 0))
	}
}
