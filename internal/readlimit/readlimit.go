// Package readlimit reads a whole file of a path a user gave, refusing one larger than a bound
// before it is read: a spec named by mistake as a data file, or a device such as /dev/zero,
// must be an error, not memory exhausted.
package readlimit

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// File returns the contents of the file at path when it holds at most max bytes; a larger
// file is an error that says what the file is (named what) and the limit, found from its
// size before reading, or while reading for a file that grows or has no size (a pipe, a
// device).
func File(path, what string, max int64) ([]byte, error) {
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
		return nil, tooLarge(path, what, max)
	}
	var b bytes.Buffer
	b.Grow(int(st.Size()) + 1)
	if _, err := b.ReadFrom(io.LimitReader(f, max+1)); err != nil {
		return nil, err
	}
	if int64(b.Len()) > max {
		return nil, tooLarge(path, what, max)
	}
	return b.Bytes(), nil
}

func tooLarge(path, what string, max int64) error {
	return fmt.Errorf("%s is larger than the %d bytes (%d MiB) %s may hold: is it the %s you meant?", path, max, max>>20, what, what)
}
