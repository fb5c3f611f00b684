package diskfull

import (
	"bytes"
	"errors"
	"testing"
)

// TestWriter: the writer passes bytes on until its room is used, then passes on what fits and
// fails, and fails every later write without passing anything on.
func TestWriter(t *testing.T) {
	var buf bytes.Buffer
	w := &Writer{W: &buf, Room: 5}
	for _, c := range []struct {
		p       string
		n       int
		fails   bool
		written string
	}{
		{"abc", 3, false, "abc"},
		{"defg", 2, true, "abcde"},
		{"h", 0, true, "abcde"},
	} {
		n, err := w.Write([]byte(c.p))
		if n != c.n || errors.Is(err, ErrFull) != c.fails || buf.String() != c.written {
			t.Errorf("Write(%q) = %d, %v with %q written; want %d, failing %v, %q written", c.p, n, err, buf.String(), c.n, c.fails, c.written)
		}
	}
}
