package readlimit

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestFile reads files up to the bound and refuses larger ones: a file one byte over (found
// from its size), and /dev/zero, which has no size and never ends (found while reading; Windows
// has no such device, and the case runs elsewhere). A missing file gives the error of os.Open,
// which wraps fs.ErrNotExist.
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
		name   string
		path   func() string
		want   string // "" for no error, or what the error says
		wantIs error  // what the error wraps, if not nil
		unix   bool   // a Unix device: the case does not run on Windows
	}{
		{name: "empty", path: func() string { return sized(0) }},
		{name: "at the bound", path: func() string { return sized(max) }},
		{name: "one byte over", path: func() string { return sized(max + 1) }, want: "larger than the 1048576 bytes (1 MiB) a test file may hold: is it the file you meant?"},
		{name: "a device without end", path: func() string { return "/dev/zero" }, want: "larger than the 1048576 bytes", unix: true},
		{name: "missing", path: func() string { return filepath.Join(dir, "none") }, wantIs: fs.ErrNotExist},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.unix && runtime.GOOS == "windows" {
				t.Skip("Windows has no device like /dev/zero, which has no size and never ends")
			}
			b, err := File(c.path(), "a test file", max)
			switch {
			case c.want == "" && c.wantIs == nil && err != nil:
				t.Fatalf("error %v, want the file", err)
			case c.want == "" && c.wantIs == nil && len(b) > max:
				t.Fatalf("read %d bytes, more than %d", len(b), max)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want one containing %q", err, c.want)
			case c.wantIs != nil && !errors.Is(err, c.wantIs):
				t.Fatalf("error %v, want one that wraps %v", err, c.wantIs)
			}
		})
	}
}

// TestFileBeyondInt gives File a bound above what an int holds and a file larger than MaxInt
// bytes (2 GiB, sparse, where an int has 32 bits): it is a *TooLargeError at the most a slice
// can hold, not a panic of a negative size. Where an int has 64 bits no file is that large, and
// the case would read 2 GiB into memory instead.
func TestFileBeyondInt(t *testing.T) {
	if strconv.IntSize == 64 {
		t.Skip("an int holds the size of any file where it has 64 bits; the case is for 32-bit platforms")
	}
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	const size = 1 << 31
	if err := os.Truncate(p, size); err != nil {
		t.Skipf("inconclusive: no sparse file of %d bytes here: %v", int64(size), err)
	}
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		_, err = File(p, "a test file", 2*size)
	}()
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Max != math.MaxInt-1 || tl.Size != size {
		t.Fatalf("error %v, want a *TooLargeError of %d bytes over the bound %d", err, int64(size), math.MaxInt-1)
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

// TestTooLargeError: an input over the bound is a *TooLargeError holding the name, what it
// should hold, the bound and the size found: the file's size when it was known before
// reading, max+1 for a stream (reading stops there).
func TestTooLargeError(t *testing.T) {
	const max = 1000
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, make([]byte, 5000), 0o644); err != nil {
		t.Fatal(err)
	}
	fromFile := func() error { _, err := File(p, "a test file", max); return err }
	fromDevice := func() error { _, err := File("/dev/zero", "a test file", max); return err }
	fromStream := func() error {
		_, err := Reader(strings.NewReader(strings.Repeat("y", 5000)), "standard input", "a test file", max)
		return err
	}
	for _, c := range []struct {
		name string
		err  func() error
		want TooLargeError
	}{
		{"a file of known size", fromFile, TooLargeError{Name: p, What: "a test file", Max: max, Size: 5000}},
		{"a device without size", fromDevice, TooLargeError{Name: "/dev/zero", What: "a test file", Max: max, Size: max + 1}},
		{"a stream", fromStream, TooLargeError{Name: "standard input", What: "a test file", Max: max, Size: max + 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.err()
			var got *TooLargeError
			if !errors.As(err, &got) {
				t.Fatalf("error %v (%T), want a *TooLargeError", err, err)
			}
			if *got != c.want {
				t.Errorf("error %+v, want %+v", *got, c.want)
			}
		})
	}
}
