//go:build unix

package interp

import (
	"fmt"
	"os"
	"runtime/debug"
	"syscall"
)

// redirectStd points file descriptors 1 and 2 at pipes, so that everything the process writes
// (interpreted fmt.Print and compiled code alike) can be streamed to the notebook. It returns
// the read ends and a file on the original standard error for the worker's own logs; crash
// traces of the Go runtime keep going to the original standard error.
func redirectStd() (outR, errR, logf *os.File, err error) {
	origErr, err := syscall.Dup(2)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("dup stderr: %w", err)
	}
	logf = os.NewFile(uintptr(origErr), "worker-log")
	if err := debug.SetCrashOutput(logf, debug.CrashOptions{}); err != nil {
		return nil, nil, nil, fmt.Errorf("crash output: %w", err)
	}
	pipe := func(fd int) (*os.File, error) {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		if err := dup2(int(w.Fd()), fd); err != nil {
			return nil, err
		}
		w.Close()
		return r, nil
	}
	if outR, err = pipe(1); err != nil {
		return nil, nil, nil, fmt.Errorf("redirect stdout: %w", err)
	}
	if errR, err = pipe(2); err != nil {
		return nil, nil, nil, fmt.Errorf("redirect stderr: %w", err)
	}
	return outR, errR, logf, nil
}
