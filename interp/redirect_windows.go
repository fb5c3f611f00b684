//go:build windows

package interp

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/windows"
)

// origStd holds the files that os.Stdout and os.Stderr were before redirectStd: kept
// reachable, as their finalizers would close the process's original standard handles.
var origStd [2]*os.File

// redirectStd points the variables os.Stdout and os.Stderr, and the process's standard output
// handle, at pipes, so that what the process prints (interpreted fmt.Print and compiled Go
// code alike, and the commands a cell runs with os.Stdout or os.Stderr as their output) can be
// streamed to the notebook. It returns the read ends and a file on the original standard error
// for the worker's own logs.
//
// Windows has no descriptors to point elsewhere under a running program: what writes to the
// standard handles it took before (C code through its runtime's stdout and stderr, a process
// a cell starts with inherited console handles) is not captured; it goes to the worker's log.
// The standard error handle keeps pointing at the original standard error: the Go runtime
// writes there when the process dies, and a pipe read by the dying process would swallow it.
func redirectStd() (outR, errR, logf *os.File, err error) {
	logf = os.Stderr
	outR, outW, errR, errW, err := capturePipes()
	if err != nil {
		return nil, nil, nil, err
	}
	if err := windows.SetStdHandle(windows.STD_OUTPUT_HANDLE, windows.Handle(outW.Fd())); err != nil {
		return nil, nil, nil, fmt.Errorf("redirect stdout: %w", err)
	}
	origStd = [2]*os.File{os.Stdout, os.Stderr}
	os.Stdout = outW
	os.Stderr = errW
	return outR, errR, logf, nil
}

// keepFromCommands does nothing: ipc.InheritedPipe made the front's pipes non-inheritable.
func keepFromCommands(*os.File) {}

// inheritedCapture has nothing to return: no worker replaces itself here (switchProcess).
func inheritedCapture() (outW, errW *os.File, ok bool, err error) { return nil, nil, false, nil }

// switchProcess cannot move the session to another worker program here: Windows cannot
// replace a running process by another (exec), which the move needs to keep the front's pipes.
func (w *worker) switchProcess(string, *resume) error {
	return fmt.Errorf("linking packages into the notebook's worker replaces its process by a new program, which %s cannot do: use the packages gosbi links, or run the notebook under WSL: %w", runtime.GOOS, errors.ErrUnsupported)
}

// silenced runs f: nothing replays cells here, as no process is replaced by another.
func silenced(f func()) { f() }
