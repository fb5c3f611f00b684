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
