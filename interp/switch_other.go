//go:build !unix && !windows

package interp

import (
	"errors"
	"fmt"
	"os"
	"runtime"
)

// errNoDescriptors is the error of what the kernel worker does with the process's file
// descriptors (dup2, exec) on a system without Unix descriptors.
var errNoDescriptors = fmt.Errorf("the notebook kernel's worker redirects and hands on Unix file descriptors, which %s has not: run notebooks with gosbi run, or the kernel under WSL: %w", runtime.GOOS, errors.ErrUnsupported)

// redirectStd cannot point descriptor 1 at a pipe here: the kernel worker does not run.
func redirectStd() (outR, errR, logf *os.File, err error) {
	return nil, nil, nil, errNoDescriptors
}

// switchProcess cannot replace the worker by another program here.
func (w *worker) switchProcess(string, *resume) error { return errNoDescriptors }

// silenced runs f: nothing replays cells here, as no process is replaced by another
// (switchProcess, execInto).
func silenced(f func()) { f() }
