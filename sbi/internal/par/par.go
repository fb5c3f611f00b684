// Package par splits the rows of a kernel over a fixed set of worker goroutines, for the
// kernels of package nn and of the flows' transforms, and keeps their scratch values in free
// lists. Handing work over allocates nothing, and every item is processed by one goroutine
// in a fixed order, so results do not depend on the number of goroutines. Range gives each
// goroutine a fixed chunk; RangeShared hands chunks out as goroutines come for them (a worker
// woken late takes fewer), for jobs whose results do not depend on which goroutine runs a
// chunk nor where the chunks begin.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/internal/safe"
)

// Kernels that pay for it (matrix products, the spline transforms) split their rows over a
// fixed set of worker goroutines. Work is handed over as values on channels and the jobs are
// preallocated, so splitting allocates nothing. A chunk goes to a worker only if one is
// waiting for work; otherwise the caller does it itself. So a kernel called from goroutines
// that already keep every core busy (a batched evaluation split by the caller) runs on its
// own goroutine instead of queueing behind the workers. A panic in a chunk run by a worker is
// sent back with the chunk's completion and raised again on the caller's goroutine, so that it
// reaches whoever can recover it instead of ending the process.

// Job processes items [lo, hi).
type Job interface {
	Do(lo, hi int)
}

type task struct {
	job    Job
	lo, hi int
	done   chan error // receives nil, or the chunk's panic as a *safe.PanicError
}

var (
	workersOnce sync.Once
	workCh      chan task
	doneFree    = make(chan chan error, 64)
)

func startWorkers() {
	n := max(runtime.NumCPU(), runtime.GOMAXPROCS(0), 2) - 1
	workCh = make(chan task) // unbuffered: a send succeeds only when a worker is idle
	for i := 0; i < n; i++ {
		go func() {
			for t := range workCh {
				t.done <- t.run()
			}
		}()
	}
}

// run does the task's chunk and returns its panic, if any.
func (t task) run() (err error) {
	defer safe.Recover(&err, "parallel kernel")
	t.job.Do(t.lo, t.hi)
	return nil
}

// Range runs job over [0, n), split into at most runenv.Threads() chunks (the host's thread
// limit) of at least grain items; the calling goroutine does the first chunk. A panic in a
// chunk is raised again on the calling goroutine, as a *safe.PanicError.
func Range(n, grain int, job Job) {
	p := min(runenv.Threads(), n/max(grain, 1))
	if p < 2 {
		job.Do(0, n)
		return
	}
	runChunks(job, n, (n+p-1)/p)
}

// RangeShared runs job over [0, n) in chunks of grain items handed out from a shared
// counter: the calling goroutine and at most runenv.Threads() − 1 workers each take the next
// chunk until none is left. A worker that starts late (woken from sleep) takes fewer chunks
// instead of holding the others up, where Range's fixed chunks would wait for it. Every item
// is processed once, by one goroutine, so job.Do must give results that do not depend on the
// chunks' boundaries. A panic in a chunk is raised again on the calling goroutine, as a
// *safe.PanicError.
func RangeShared(n, grain int, job Job) {
	grain = max(grain, 1)
	p := min(runenv.Threads(), n/grain)
	if p < 2 {
		job.Do(0, n)
		return
	}
	s := sharedJobs.Get()
	s.job, s.n, s.grain = job, n, grain
	s.next.Store(0)
	runChunks(s, p, 1) // one loop over the chunks per goroutine
	s.job = nil
	sharedJobs.Put(s)
}

// shared is the job of RangeShared's goroutines: chunks of grain items of job, taken in turn
// from next.
type shared struct {
	job      Job
	next     atomic.Int64
	n, grain int
}

var sharedJobs FreeList[shared]

// Do runs chunks of s.job until none is left; its bounds are ignored.
func (s *shared) Do(_, _ int) {
	for {
		lo := int(s.next.Add(int64(s.grain))) - s.grain
		if lo >= s.n {
			return
		}
		s.job.Do(lo, min(s.n, lo+s.grain))
	}
}

// runChunks runs job over [0, n) in chunks of chunk items: those after the first go to the
// workers that are idle (or run here when none is), the first runs on the calling
// goroutine, which then waits for the others and raises the first of their panics.
func runChunks(job Job, n, chunk int) {
	workersOnce.Do(startWorkers)
	var done chan error
	select {
	case done = <-doneFree:
	default:
		done = make(chan error, 64)
	}
	sent := 0
	for lo := chunk; lo < n; lo += chunk {
		t := task{job: job, lo: lo, hi: min(n, lo+chunk), done: done}
		select {
		case workCh <- t:
			sent++
		default: // every worker is busy: do it here
			job.Do(t.lo, t.hi)
		}
	}
	job.Do(0, min(n, chunk))
	var first error
	for ; sent > 0; sent-- {
		if err := <-done; err != nil && first == nil {
			first = err
		}
	}
	select {
	case doneFree <- done:
	default:
	}
	if first != nil {
		panic(first)
	}
}

// FreeList keeps scratch values for reuse across calls and goroutines; unlike a sync.Pool it
// is never emptied by the garbage collector, so steady-state kernels allocate nothing.
type FreeList[T any] struct {
	mu   sync.Mutex
	free []*T
}

// Get returns a value from the list, or a new zero value when the list is empty.
func (l *FreeList[T]) Get() *T {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.free); n > 0 {
		v := l.free[n-1]
		l.free = l.free[:n-1]
		return v
	}
	return new(T)
}

// Put returns v to the list.
func (l *FreeList[T]) Put(v *T) {
	l.mu.Lock()
	l.free = append(l.free, v)
	l.mu.Unlock()
}
