package nn

import (
	"runtime"
	"sync"

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

// rangeJob processes items [lo, hi).
type rangeJob interface {
	do(lo, hi int)
}

type task struct {
	job    rangeJob
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
	defer safe.Recover(&err, "nn: parallel kernel")
	t.job.do(t.lo, t.hi)
	return nil
}

// parallelRange runs job over [0, n), split into at most runenv.Threads() chunks (the host's
// thread limit) of at least grain items; the calling goroutine does the first chunk.
func parallelRange(n, grain int, job rangeJob) {
	p := min(runenv.Threads(), n/max(grain, 1))
	if p < 2 {
		job.do(0, n)
		return
	}
	workersOnce.Do(startWorkers)
	var done chan error
	select {
	case done = <-doneFree:
	default:
		done = make(chan error, 64)
	}
	chunk := (n + p - 1) / p
	sent := 0
	for lo := chunk; lo < n; lo += chunk {
		t := task{job: job, lo: lo, hi: min(n, lo+chunk), done: done}
		select {
		case workCh <- t:
			sent++
		default: // every worker is busy: do it here
			job.do(t.lo, t.hi)
		}
	}
	job.do(0, min(n, chunk))
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

// freeList keeps scratch values for reuse across calls and goroutines; unlike a sync.Pool it
// is never emptied by the garbage collector, so steady-state kernels allocate nothing.
type freeList[T any] struct {
	mu   sync.Mutex
	free []*T
}

// get returns a value from the list, or a new zero value when the list is empty.
func (l *freeList[T]) get() *T {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.free); n > 0 {
		v := l.free[n-1]
		l.free = l.free[:n-1]
		return v
	}
	return new(T)
}

// put returns v to the list.
func (l *freeList[T]) put(v *T) {
	l.mu.Lock()
	l.free = append(l.free, v)
	l.mu.Unlock()
}
