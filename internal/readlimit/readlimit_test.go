package readlimit

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFile reads files up to the bound and refuses larger ones: a file one byte over (found
// from its size), and /dev/zero, which has no size and never ends (found while reading).
func TestFile(t *testing.T) {
	dir := t.TempDir()
	sized := func(n int64) string {
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, n); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const max = 1 << 20
	for _, c := range []struct {
		name string
		path func() string
		want string // "" for no error
	}{
		{"empty", func() string { return sized(0) }, ""},
		{"at the bound", func() string { return sized(max) }, ""},
		{"one byte over", func() string { return sized(max + 1) }, "larger than the 1048576 bytes (1 MiB) a test file may hold: is it the file you meant?"},
		{"a device without end", func() string { return "/dev/zero" }, "larger than the 1048576 bytes"},
		{"missing", func() string { return filepath.Join(dir, "none") }, "no such file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := File(c.path(), "a test file", max)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("error %v, want the file", err)
			case c.want == "" && len(b) > max:
				t.Fatalf("read %d bytes, more than %d", len(b), max)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// endless is a stream that never ends, like a pipe from yes.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'y'
	}
	return len(p), nil
}

// TestReader reads streams up to the bound and refuses longer ones, an endless one included.
func TestReader(t *testing.T) {
	const max = 1 << 20
	for _, c := range []struct {
		name string
		r    io.Reader
		want string // "" for no error
	}{
		{"empty", strings.NewReader(""), ""},
		{"at the bound", strings.NewReader(strings.Repeat("y", max)), ""},
		{"one byte over", strings.NewReader(strings.Repeat("y", max+1)), "standard input is larger than the 1048576 bytes (1 MiB) a test file may hold"},
		{"endless", endless{}, "standard input is larger than the 1048576 bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := Reader(c.r, "standard input", "a test file", max)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("error %v, want the stream", err)
			case c.want == "" && len(b) > max:
				t.Fatalf("read %d bytes, more than %d", len(b), max)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}
