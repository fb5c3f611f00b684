package diag

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
)

// forEachPair calls fn(i) for i in [0, n) on workers goroutines (0 means GOMAXPROCS). It stops
// at the first error, checks sbi.Canceled before every pair and reports progress under label.
func forEachPair(label string, n, workers int, fn func(i int) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n)
	prog := sbi.NewProgress(label, n)
	defer prog.Finish()
	var (
		next    atomic.Int64
		stop    atomic.Bool
		errOnce sync.Once
		first   error
		wg      sync.WaitGroup
	)
	fail := func(err error) {
		errOnce.Do(func() { first = err })
		stop.Store(true)
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := sbi.Canceled(label); err != nil {
					fail(err)
					return
				}
				if err := fn(i); err != nil {
					fail(err)
					return
				}
				prog.Add(1)
			}
		}()
	}
	wg.Wait()
	return first
}

// pairRNG is the random stream of test pair i: independent of the worker that runs it.
func pairRNG(seed uint64, i int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(i)))
}

// checkPairs validates a batch of test pairs.
func checkPairs(what string, theta, x *mat.Dense) error {
	if theta == nil || x == nil {
		return fmt.Errorf("diag: %s needs test parameters and observations, got nil", what)
	}
	n, _ := theta.Dims()
	m, _ := x.Dims()
	if n != m {
		panic(fmt.Sprintf("diag: %s: theta has %d rows but x has %d; one row per test pair", what, n, m))
	}
	if n == 0 {
		return fmt.Errorf("diag: %s needs at least one test pair, got 0", what)
	}
	return nil
}

func rowCopy(m *mat.Dense, i int) []float64 {
	return append([]float64(nil), m.RawRowView(i)...)
}

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }
