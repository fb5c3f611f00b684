//go:build unix

package kernel

import (
	"errors"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestEndReads ends the reading of a dead worker's capture pipe that a process it started
// still holds open: with a read deadline where the pipe can have one, and otherwise (a file on a
// blocking descriptor here; every pipe on Windows) by closing the read end.
func TestEndReads(t *testing.T) {
	for _, c := range []struct {
		name string
		pipe func(*testing.T) (r, w *os.File)
		ends func(r *os.File) error // nil once the reading has ended
	}{
		{"deadline", pollablePipe, func(r *os.File) error {
			if _, err := r.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
				return errors.New("a read does not end at the deadline")
			}
			return nil
		}},
		{"no deadline", blockingPipe, func(r *os.File) error {
			if _, err := r.Stat(); !errors.Is(err, os.ErrClosed) {
				return errors.New("the read end is still open")
			}
			return nil
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, w := c.pipe(t)
			defer w.Close()
			defer r.Close()
			stop := endReads([]*os.File{r}, time.Millisecond)
			defer stop()
			limit := time.Now().Add(10 * time.Second)
			for err := c.ends(r); err != nil; err = c.ends(r) {
				if time.Now().After(limit) {
					t.Fatalf("10 s after endReads(1ms): %v", err)
				}
				time.Sleep(time.Millisecond)
			}
		})
	}
}

// pollablePipe returns a pipe whose read end can have a deadline.
func pollablePipe(t *testing.T) (r, w *os.File) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	return r, w
}

// blockingPipe returns a pipe on blocking descriptors, whose read end cannot have a deadline.
func blockingPipe(t *testing.T) (r, w *os.File) {
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	r, w = os.NewFile(uintptr(p[0]), "r"), os.NewFile(uintptr(p[1]), "w")
	if err := r.SetReadDeadline(time.Now()); !errors.Is(err, os.ErrNoDeadline) {
		t.Fatalf("SetReadDeadline on a blocking pipe: %v; want os.ErrNoDeadline", err)
	}
	return r, w
}
