package interp

import (
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"

	"github.com/gosbi/gosbi/internal/syncbuf"
)

// runParallel stands for the library's simulation runner: it calls a simulator for every
// parameter row from several goroutines, each row with its own generator seeded by its index.
func runParallel(sim func(rng *rand.Rand, theta []float64) []float64, thetas [][]float64, workers int) [][]float64 {
	out := make([][]float64, len(thetas))
	var wg sync.WaitGroup
	rows := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rows {
				out[i] = sim(rand.New(rand.NewPCG(uint64(i), 7)), thetas[i])
			}
		}()
	}
	for i := range thetas {
		rows <- i
	}
	close(rows)
	wg.Wait()
	return out
}

// compiledSim is the simulator of the cell below, compiled.
func compiledSim(rng *rand.Rand, theta []float64) []float64 {
	x := make([]float64, 4)
	for i := range x {
		x[i] = theta[0] + theta[1]*rng.NormFloat64() + float64(i)
	}
	return x
}

const simulatorCell = `import "math/rand/v2"
import "simtest"

func sim(rng *rand.Rand, theta []float64) []float64 {
	x := make([]float64, 4)
	for i := range x {
		x[i] = theta[0] + theta[1]*rng.NormFloat64() + float64(i)
	}
	return x
}

thetas := make([][]float64, 400)
for i := range thetas {
	thetas[i] = []float64{float64(i), 0.5}
}
out := simtest.Run(sim, thetas, 8)`

// TestCellSimulatorOnAllCores passes a simulator written in a cell to compiled code that runs
// it from 8 goroutines, and compares every output with the same simulator compiled.
func TestCellSimulatorOnAllCores(t *testing.T) {
	out := &syncbuf.Buffer{}
	s, err := NewSession(Config{Stdout: out, Stderr: out, Symbols: map[string]map[string]reflect.Value{
		"simtest/simtest": {"Run": reflect.ValueOf(runParallel)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res := s.Execute(t.Context(), simulatorCell, 1); res.Err != nil {
		t.Fatalf("%s\n%v", res.Err.Value, res.Err.Traceback)
	}
	v, ok := s.global("out")
	if !ok {
		t.Fatal("no variable out")
	}
	got := v.Interface().([][]float64)
	thetas := make([][]float64, 400)
	for i := range thetas {
		thetas[i] = []float64{float64(i), 0.5}
	}
	want := runParallel(compiledSim, thetas, 8)
	if !reflect.DeepEqual(got, want) {
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("row %d: interpreted %v, compiled %v", i, got[i], want[i])
			}
		}
	}
}
