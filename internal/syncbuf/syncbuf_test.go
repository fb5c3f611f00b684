package syncbuf_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/gosbi/gosbi/internal/syncbuf"
)

// TestConcurrentWrites: lines written by several goroutines while another reads all arrive
// whole (run with -race to check the locking).
func TestConcurrentWrites(t *testing.T) {
	var b syncbuf.Buffer
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				fmt.Fprintf(&b, "g%d line %d\n", g, i)
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	seen := map[string]bool{}
	for _, l := range lines {
		seen[l] = true
	}
	if len(lines) != 800 || len(seen) != 800 {
		t.Errorf("%d lines, %d distinct, want 800", len(lines), len(seen))
	}
}

func ExampleBuffer() {
	var b syncbuf.Buffer
	fmt.Fprintln(&b, "a line read and dropped")
	b.Reset()
	fmt.Fprintln(&b, "written by one goroutine, read by another")
	fmt.Print(b.String())
	// Output: written by one goroutine, read by another
}
