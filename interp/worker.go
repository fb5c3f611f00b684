// Package interp is the notebook session on yaegi: the worker process of the kernel.
package interp

import "errors"

// WorkerMain runs the interpreter worker. (Being built: see the interpreter issue.)
func WorkerMain(args []string) error { return errors.New("worker: not built yet") }

// ScriptMain runs a Go file. (Being built.)
func ScriptMain(args []string) error { return errors.New("script: not built yet") }

// REPLMain runs a terminal session. (Being built.)
func REPLMain(args []string) error { return errors.New("repl: not built yet") }
