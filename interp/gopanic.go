package interp

import (
	"fmt"
	"reflect"

	yaegi "github.com/traefik/yaegi/interp"
)

// This file reports the panics of goroutines that a cell's go statement started. The rewrite
// recover-goroutines makes each such goroutine defer the prelude's _gosbiGoPanic, which hands
// what recover gave to the session's goPanic: the panic ends the goroutine only, and the
// session, its variables included, goes on. Goroutines that compiled code starts are not
// covered, and runtime fatal errors (concurrent map writes, a stack overflow) cannot be
// recovered: they still end the process.

// goPanicSymbols are the session's own compiled helpers of the prelude.
func (s *Session) goPanicSymbols() yaegi.Exports {
	return yaegi.Exports{
		"github.com/gosbi/gosbi/interp/builtin/builtin": {"GoPanic": reflect.ValueOf(s.goPanic)},
	}
}

// goPanic reports the panic value r of a goroutine that the go statement of cell on the
// interpreter's line started, on the session's standard error: in a notebook, under the cell
// that runs when it happens, or the last cell that ran. It may be called from any goroutine.
func (s *Session) goPanic(cell, line int, r any) {
	fmt.Fprintf(s.opts.Stderr, "%s\n", goPanicMessage(cell, line-lineBase(cell), r))
}

// goPanicMessage is the report of a panic with value r in a goroutine that the go statement
// of cell on its line started.
func goPanicMessage(cell, line int, r any) string {
	if err, ok := r.(error); ok {
		r = err.Error()
	}
	return fmt.Sprintf("panic in a goroutine started by cell [%d] line %d: %v\n(the goroutine ended; the session and its variables are kept)", cell, line, r)
}
