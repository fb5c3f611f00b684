package par

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/internal/safe"
)

type panicJob struct{}

func (panicJob) Do(lo, hi int) {
	if lo > 0 {
		panic("boom in a kernel chunk")
	}
}

// TestRangePanic checks that a panic in a chunk run by a kernel worker is raised again
// on the caller's goroutine, where it can be recovered, instead of ending the process.
func TestRangePanic(t *testing.T) {
	defer runenv.SetThreads(0)
	runenv.SetThreads(4)
	workersOnce.Do(startWorkers)
	for trial := range 50 {
		time.Sleep(time.Millisecond) // let the workers reach their receive, so that they take chunks
		err := safe.Call("caller", func() error { Range(4096, 16, panicJob{}); return nil })
		var pe *safe.PanicError
		if !errors.As(err, &pe) {
			t.Fatalf("trial %d: error %v, want the chunk's panic", trial, err)
		}
	}
}

// countJob counts the chunks it is given and the most of them that run at once.
type countJob struct {
	chunks, running, peak atomic.Int32
}

func (j *countJob) Do(lo, hi int) {
	j.chunks.Add(1)
	n := j.running.Add(1)
	for {
		p := j.peak.Load()
		if n <= p || j.peak.CompareAndSwap(p, n) {
			break
		}
	}
	time.Sleep(2 * time.Millisecond) // long enough for the chunks handed to workers to overlap
	j.running.Add(-1)
}

// TestThreadLimit checks that kernels honour the thread limit a host sets through runenv: a
// split never uses more goroutines than the limit, and uses all of it when the work allows,
// above the number of cores too; SetThreads(0) restores GOMAXPROCS.
func TestThreadLimit(t *testing.T) {
	defer runenv.SetThreads(0)
	for _, limit := range []int{1, 2, 3, 5, 0} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			runenv.SetThreads(limit)
			want := limit
			if limit == 0 {
				want = runtime.GOMAXPROCS(0)
			}
			var job countJob
			time.Sleep(time.Millisecond) // let the workers reach their receive
			Range(64*want, 16, &job)
			if c := int(job.chunks.Load()); c != want {
				t.Errorf("limit %d: work split into %d chunks, want %d", limit, c, want)
			}
			if p := int(job.peak.Load()); p > want {
				t.Errorf("limit %d: %d chunks ran at once", limit, p)
			}
		})
	}
}

// markJob counts how often each item is processed, and panics on item boom (if ≥ 0).
type markJob struct {
	seen []atomic.Int32
	boom int
}

func (j *markJob) Do(lo, hi int) {
	for i := lo; i < hi; i++ {
		j.seen[i].Add(1)
		if i == j.boom {
			panic("boom in a shared chunk")
		}
	}
}

// TestRangeShared checks that RangeShared processes every item exactly once, whatever the
// thread limit, the number of items and the grain (a last chunk short of it included), and
// that a panic in a chunk, on a worker or on the caller, is raised again on the caller's
// goroutine.
func TestRangeShared(t *testing.T) {
	defer runenv.SetThreads(0)
	for _, limit := range []int{1, 2, 4} {
		runenv.SetThreads(limit)
		for _, n := range []int{0, 1, 7, 64, 1000} {
			for _, grain := range []int{0, 1, 3, 64} {
				job := &markJob{seen: make([]atomic.Int32, n), boom: -1}
				time.Sleep(100 * time.Microsecond) // let the workers reach their receive
				RangeShared(n, grain, job)
				for i := range job.seen {
					if c := job.seen[i].Load(); c != 1 {
						t.Fatalf("limit %d, %d items, grain %d: item %d processed %d times, want once", limit, n, grain, i, c)
					}
				}
			}
		}
	}
	runenv.SetThreads(4)
	for trial := range 50 {
		time.Sleep(time.Millisecond)
		job := &markJob{seen: make([]atomic.Int32, 4096), boom: trial * 80}
		err := safe.Call("caller", func() error { RangeShared(4096, 16, job); return nil })
		var pe *safe.PanicError
		if !errors.As(err, &pe) {
			t.Fatalf("trial %d: error %v, want the chunk's panic", trial, err)
		}
	}
}
