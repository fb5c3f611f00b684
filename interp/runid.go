package interp

import (
	"reflect"
	"sync/atomic"
	"unsafe"

	yaegi "github.com/traefik/yaegi/interp"
)

// The interpreter stops interpreted code by a run number: an interrupted evaluation advances
// the interpreter's number, and code runs only while the number of its frame equals it. A
// function literal keeps the number of the evaluation that made it (functions declared with
// func take the current one when called), so after an interrupt every function literal made
// before it (in a variable, a struct field, a map, or returned by a function) would return
// zero values without running. The session therefore sets the number back once the
// interrupted evaluation has stopped. Interpreted goroutines that take a step in between stop
// with the cell; one that waits then (in time.Sleep, a library call, a channel operation of an
// earlier cell) goes on.

// runIDOf returns the address of the interpreter's run number, or nil when the field is
// missing or of another type (a newer interpreter; TestRunIDField fails then).
func runIDOf(yi *yaegi.Interpreter) *uint64 {
	f := reflect.ValueOf(yi).Elem().FieldByName("id")
	if !f.IsValid() || f.Kind() != reflect.Uint64 || !f.CanAddr() {
		return nil
	}
	return (*uint64)(unsafe.Pointer(f.UnsafeAddr()))
}

// runID returns the interpreter's run number (0 without access to it).
func (s *Session) runID() uint64 {
	if s.runIDAddr == nil {
		return 0
	}
	return atomic.LoadUint64(s.runIDAddr)
}

// rewindRunID sets the run number back to id, that of before an interrupted evaluation,
// which has stopped. Without access to the number it returns a note for the cell's error.
func (s *Session) rewindRunID(id uint64, err error) error {
	if s.runIDAddr == nil {
		return &notedError{err, "function literals made before this interrupt no longer run (calling one " +
			"returns zero values): run the cells that made them again"}
	}
	atomic.StoreUint64(s.runIDAddr, id)
	return err
}
