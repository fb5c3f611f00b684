package par

import (
	"errors"
	"testing"
	"time"

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
	defer SetThreads(0)
	SetThreads(4)
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
