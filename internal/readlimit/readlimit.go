// Package readlimit reads a whole file of a path a user gave, refusing one larger than a bound
// before it is read: a spec named by mistake as a data file, or a device such as /dev/zero,
// must be an error, not memory exhausted. A bound above MaxInt − 1 bytes, more than a slice
// holds where an int has 32 bits, is lowered to it.
package readlimit

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
)

// maxInMemory is the most bytes File and Reader return: with the byte past it that tells a
// longer input, the length of a slice.
const maxInMemory = math.MaxInt - 1

// MaxScript bounds a Go script (16 MiB), which gosbi reads whole: one that `gosbi script`
// runs, and a study's stage script, which the study copies and runs with `gosbi script`, so
// that a script a study accepts also runs.
const MaxScript = 16 << 20

// File returns the contents of the file at path when it holds at most max bytes; a larger
// file is a *TooLargeError that says what the file is (named what) and the limit, found from
// its size before reading, or while reading for a file that grows or has no size (a pipe, a
// device).
func File(path, what string, max int64) ([]byte, error) {
	max = min(max, maxInMemory)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > max {
		return nil, &TooLargeError{Name: path, What: what, Max: max, Size: st.Size()}
	}
	return read(f, path, what, max, st.Size())
}

// Reader returns what r holds up to its end when that is at most max bytes; more is a
// *TooLargeError that names r (name, "standard input"), says what it should hold (what) and the limit, found
// while reading, so that an endless stream stops at max+1 bytes.
func Reader(r io.Reader, name, what string, max int64) ([]byte, error) {
	return read(r, name, what, min(max, maxInMemory), 0)
}

// read reads r to its end, or to one byte past max, with room for size bytes at first; size ≤
// max ≤ maxInMemory.
func read(r io.Reader, name, what string, max, size int64) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(int(size) + 1)
	if _, err := b.ReadFrom(io.LimitReader(r, max+1)); err != nil {
		return nil, err
	}
	if int64(b.Len()) > max {
		return nil, &TooLargeError{Name: name, What: what, Max: max, Size: int64(b.Len())}
	}
	return b.Bytes(), nil
}

// TooLargeError is the error of File and Reader for an input over the bound, so that a caller
// with more to say (how to make the file smaller) can say it with the sizes.
type TooLargeError struct {
	Name string // the path, or the name of the stream
	What string // what the input should hold ("a study spec")
	Max  int64  // the bound, in bytes
	// Size is the size found: the file's size when it was known before reading, else the
	// bytes read, max+1 (reading stops there).
	Size int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than the %d bytes (%d MiB) %s may hold: is it the file you meant?", e.Name, e.Max, e.Max>>20, e.What)
}
