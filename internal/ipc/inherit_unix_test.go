//go:build unix

package ipc

import (
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestInheritedFD opens a descriptor the worker inherited, and refuses one that is not open
// with an error saying who passes the pipes, instead of a file whose every use fails.
func TestInheritedFD(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	open, err := syscall.Dup(int(w.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	f, err := inheritedFD(open, "events")
	if err != nil {
		t.Fatalf("inheritedFD(%d) of an open pipe: %v", open, err)
	}
	if _, err := f.WriteString("x"); err != nil {
		t.Fatalf("write to the inherited pipe: %v", err)
	}
	f.Close()
	if b, err := io.ReadAll(io.LimitReader(r, 1)); err != nil || string(b) != "x" {
		t.Fatalf("read what went through the inherited pipe: %q, %v", b, err)
	}

	closed, err := syscall.Dup(int(w.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	syscall.Close(closed)
	f, err = inheritedFD(closed, "requests")
	if err == nil {
		f.Close()
		t.Fatalf("inheritedFD(%d) of a closed descriptor succeeded; want an error", closed)
	}
	for _, want := range []string{"file descriptor", "(requests) is not open", "gosbi kernel"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("inheritedFD(%d) of a closed descriptor: %v; want it to say %q", closed, err, want)
		}
	}
}
