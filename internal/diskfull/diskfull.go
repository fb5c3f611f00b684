// Package diskfull gives tests a writer that fails part-way through, as a full disk does, to
// check that a failed save leaves the file that was there before.
package diskfull

import (
	"errors"
	"io"
)

// ErrFull is the error of a Writer once its room is used.
var ErrFull = errors.New("disk full")

// Writer passes the first Room bytes written to it on to W and then fails with ErrFull: the
// write that crosses the limit passes on the bytes that fit and returns their count with the
// error.
type Writer struct {
	W    io.Writer
	Room int
}

// Write implements io.Writer.
func (f *Writer) Write(p []byte) (int, error) {
	if len(p) > f.Room {
		k, _ := f.W.Write(p[:f.Room])
		f.Room = 0
		return k, ErrFull
	}
	f.Room -= len(p)
	return f.W.Write(p)
}
