package sbi

import (
	"github.com/gosbi/gosbi/sbi/nn"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
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
// goroutines and waits for all of them.
func parallelChunks(n, chunk int, f func(c, lo, hi int)) {
	chunks := (n + chunk - 1) / chunk
	workers := min(runtime.GOMAXPROCS(0), chunks)
	if workers <= 1 {
		for c := 0; c < chunks; c++ {
			f(c, c*chunk, min((c+1)*chunk, n))
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
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

// getTape returns a gradient-free float64 tape from the pool (set Float32 for log-densities:
// nn.Tape.Float32).
func getTape() *nn.Tape {
	tp := evalTapes.Get().(*nn.Tape)
	tp.NoGrad, tp.Float32 = true, false
	return tp
}

// putTape resets tp and returns it to the pool; nothing it returned may be used afterwards.
func putTape(tp *nn.Tape) {
	tp.Reset()
	evalTapes.Put(tp)
}
