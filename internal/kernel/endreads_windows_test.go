//go:build windows

package kernel

import (
	"os"
	"testing"
	"time"
)

// TestEndReads ends a read blocked on a dead worker's capture pipe that a process it started
// still holds open: Windows pipes have no read deadline, so endReads closes the read end, which
// cancels the read.
func TestEndReads(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer r.Close()
	read := make(chan error, 1)
	go func() {
		_, err := r.Read(make([]byte, 1))
		read <- err
	}()
	stop := endReads([]*os.File{r}, time.Millisecond)
	defer stop()
	select {
	case err := <-read:
		if err == nil {
			t.Error("the read ended without an error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the read has not ended 10 s after endReads(1ms)")
	}
}
