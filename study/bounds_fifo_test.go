//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

// The test here makes a named pipe (syscall.Mkfifo), which these systems have.

package study

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestTailReadsAtMostItsBound: tail reads at most tailBytes of a log that grows while it
// reads (here a named pipe that its writer fills with 16 times that much): the lines it
// returns are within the first tailBytes of what the writer wrote, not its last ones.
func TestTailReadsAtMostItsBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	const lineLen = 16 // "line 0000000001\n"
	total := 16 * tailBytes / lineLen
	done := make(chan struct{})
	go func() {
		defer close(done)
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		for k := range total {
			if _, err := fmt.Fprintf(w, "line %010d\n", k); err != nil {
				return // the reader has closed the pipe
			}
		}
	}()
	got := tail(path, 3)
	<-done
	lines := strings.Split(got, "\n")
	last, err := strconv.Atoi(strings.TrimPrefix(lines[len(lines)-1], "line "))
	if err != nil {
		t.Fatalf("tail = %q: %v", got, err)
	}
	if last >= tailBytes/lineLen {
		t.Errorf("tail's last line is line %d, written after the first %d bytes: it read more than tailBytes", last, (last+1)*lineLen)
	}
}
