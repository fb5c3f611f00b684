package interp

import (
	"context"
	"fmt"
	"reflect"

	yaegi "github.com/traefik/yaegi/interp"
)

// This file runs the defer statements of a cell's top level. Go allows them only in a
// function; a notebook's cell stands where the body of a main function would, so the rewrite
// cell-defers hands each deferred call to the prelude's _gosbiCellDefer, which keeps it here,
// and the session runs the calls kept, the last first, when the cell's Go code ends, whether it
// ended well or not. An interrupted cell runs none of them, as a program stopped by a signal
// runs no deferred call; the cell's output says so.

// cellDeferSymbols are the session's compiled helpers of the prelude for cell-defers.
func (s *Session) cellDeferSymbols() yaegi.Exports {
	return yaegi.Exports{
		"github.com/gosbi/gosbi/interp/builtin/builtin": {
			"CellDefer":      reflect.ValueOf(s.keepCellDefer),
			"TakeCellDefers": reflect.ValueOf(s.takeCellDefers),
		},
	}
}

// keepCellDefer keeps a deferred call of the running cell's top level.
func (s *Session) keepCellDefer(f func()) { s.cellDefers = append(s.cellDefers, f) }

// takeCellDefers returns the calls kept, in the order of their defer statements, and forgets them.
func (s *Session) takeCellDefers() []func() {
	fs := s.cellDefers
	s.cellDefers = nil
	return fs
}

// runCellDefers runs the calls that the top level of the Go code whose result is res deferred
// and returns the code's result: res, or the failure of a deferred call when res is none. A
// deferred call's failure after the code had failed is written to the session's standard error.
func (s *Session) runCellDefers(ctx context.Context, res Result) Result {
	if len(s.cellDefers) == 0 {
		return res
	}
	if ctx.Err() != nil {
		n := len(s.takeCellDefers())
		fmt.Fprintf(s.opts.Stderr, "cell [%d] was interrupted: its %d deferred call(s) of the top level did not run\n", s.cell, n)
		return res
	}
	_, err := s.eval(ctx, "_gosbiRunCellDefers()")
	s.cellDefers = nil
	switch {
	case err == nil:
		return res
	case res.Err == nil:
		return s.fail(err)
	}
	fmt.Fprintf(s.opts.Stderr, "a deferred call of cell [%d] failed too: %s\n", s.cell, s.toError(err).Value)
	return res
}
