// Package safe turns panics in the library's worker goroutines into errors. A panic that
// escapes a goroutine ends the whole process (a notebook worker with all its state), whereas
// one on the caller's goroutine is an error the host can report; so every goroutine the
// library starts defers Recover, and the loop that waits for the workers returns the error or,
// when its API has no error result, panics with it on the caller's goroutine.
package safe

import (
	"errors"
	"fmt"
	"runtime/debug"
)

// PanicError is a panic recovered in a worker goroutine.
type PanicError struct {
	What  string // the work that panicked, e.g. "expected coverage (rank), test pair 3"
	Value any    // the value passed to panic
	Stack []byte // the stack of the panicking goroutine
}

// Error names the work and the panic value; the stack is in the Stack field.
func (e *PanicError) Error() string {
	return fmt.Sprintf("%s panicked: %v", e.What, e.Value)
}

// Unwrap returns the panic value when it is an error, so that errors.Is sees through the panic
// (a cancelled simulation panics with context.Canceled).
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// Recover, deferred directly in a goroutine (defer safe.Recover(&err, "what")), stores a panic
// of that goroutine in *errp as a *PanicError and lets it return normally. A panic value that is
// already a *PanicError (re-raised by a nested parallel loop) is kept as it is.
func Recover(errp *error, what string) {
	p := recover()
	if p == nil {
		return
	}
	var pe *PanicError
	if err, ok := p.(error); ok && errors.As(err, &pe) {
		*errp = err
		return
	}
	*errp = &PanicError{What: what, Value: p, Stack: debug.Stack()}
}

// Call runs fn and returns its error, or the panic of fn as a *PanicError.
func Call(what string, fn func() error) (err error) {
	defer Recover(&err, what)
	return fn()
}

// Must returns v, or panics with err itself when it is not nil: the body of every exported
// MustX form, whose panic value stays an error so that errors.Is and errors.As see through a
// recovered panic.
func Must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
