package sbi

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gosbi/gosbi/sbi/internal/safe"
	"github.com/gosbi/gosbi/sbi/nn"
)

// evalChunk is the number of rows one worker evaluates at a time in batched evaluations.
const evalChunk = 512

// chunkFor returns the chunk size for evaluating n rows: at most evalChunk, and small enough
// (down to 64 rows) that every core gets work.
func chunkFor(n int) int {
	w := runtime.GOMAXPROCS(0)
	return min(evalChunk, max(64, (n+w-1)/w))
}

// parallelChunks calls f on the chunks [lo, hi) of 0…n−1 (chunk rows each) with GOMAXPROCS
// goroutines and waits for all of them. A panic in f on a worker goroutine stops the workers and
// is raised again, as a *safe.PanicError, on the caller's goroutine, where the caller (or the
// host running it) can recover it; a panic that escaped the worker would end the process.
func parallelChunks(n, chunk int, f func(c, lo, hi int)) {
	chunks := (n + chunk - 1) / chunk
	workers := min(runtime.GOMAXPROCS(0), chunks)
	if workers <= 1 {
		for c := 0; c < chunks; c++ {
			f(c, c*chunk, min((c+1)*chunk, n))
		}
		return
	}
	var (
		next  atomic.Int64
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			defer func() {
				if err != nil {
					once.Do(func() { first = err })
					next.Store(int64(chunks)) // no new chunk starts
				}
			}()
			defer safe.Recover(&err, "sbi: parallel evaluation")
			for {
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				f(c, c*chunk, min((c+1)*chunk, n))
			}
		}()
	}
	wg.Wait()
	if first != nil {
		panic(first)
	}
}

// chunkRand returns the generator of chunk c of a parallel draw whose streams were derived
// from the caller's generator: results do not depend on the number of cores.
func chunkRand(s streams, c int) *rand.Rand {
	src := &rand.PCG{}
	s.seed(src, uint64(c))
	return rand.New(src)
}

// atomicFlag is a flag set from several goroutines.
type atomicFlag struct{ v atomic.Bool }

func (f *atomicFlag) set()      { f.v.Store(true) }
func (f *atomicFlag) get() bool { return f.v.Load() }

// evalTapes holds gradient-free tapes for batched evaluation, so that their buffers are
// reused between calls instead of reallocated.
var evalTapes = sync.Pool{New: func() any { return nn.NewTape() }}

// getTape returns a gradient-free tape from the pool.
func getTape() *nn.Tape {
	tp := evalTapes.Get().(*nn.Tape)
	tp.NoGrad = true
	return tp
}

// putTape resets tp and returns it to the pool; nothing it returned may be used afterwards.
func putTape(tp *nn.Tape) {
	tp.Reset()
	evalTapes.Put(tp)
}
