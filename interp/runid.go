package interp

import (
	"go/ast"
	"go/token"
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

// An interrupt also closes the channel by which the interpreter ends the channel operations of
// the evaluation it stops, and the function literals that the interrupted evaluation made
// keep that channel: afterwards such a literal ends at once, with zero values, where it would
// wait on a channel (a receive, a send, a select or a range over a channel that must wait).
// The interpreter offers no way to replace that channel, so the interrupt's error says so
// whenever the cell has a function literal that may wait on a channel.

// waitNote is the note of an interrupted cell that has a function literal that may wait on a
// channel.
const waitNote = "note: a function literal that this cell made before the interrupt now ends at once, " +
	"with zero values, where it would wait on a channel (a receive, send, select or range over a channel): " +
	"run the cell again before calling it"

// literalMayWait reports whether a function literal of the items may wait on a channel: its
// body has a receive, a send, a select, or a range with at most one variable (a range over a
// channel has one at most; the interpreter's types are not known here).
func literalMayWait(items []item) bool {
	found := false
	for _, it := range items {
		ast.Inspect(node(it), func(n ast.Node) bool {
			if lit, ok := n.(*ast.FuncLit); ok && !found {
				found = mayWait(lit.Body)
			}
			return !found
		})
	}
	return found
}

// mayWait reports whether the body has a channel operation that may wait.
func mayWait(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SendStmt, *ast.SelectStmt:
			found = true
		case *ast.UnaryExpr:
			found = found || n.Op == token.ARROW
		case *ast.RangeStmt:
			found = found || n.Value == nil
		}
		return !found
	})
	return found
}
