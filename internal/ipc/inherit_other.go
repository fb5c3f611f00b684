//go:build !windows

package ipc

import (
	"fmt"
	"os"
	"os/exec"
)

// PassPipes passes files to the worker that cmd starts, in the order of RequestPipe to
// StderrWrite, as its file descriptors 3 and up (see InheritedPipe). Call done once cmd has
// started, or failed to.
func PassPipes(cmd *exec.Cmd, files []*os.File) (done func(), err error) {
	cmd.ExtraFiles = files
	return func() {}, nil
}

// InheritedPipe returns the pipe number i (RequestPipe to StderrWrite) that the front passed
// the worker: file descriptor 3+i.
func InheritedPipe(i int, name string) (*os.File, error) {
	f := os.NewFile(uintptr(3+i), name)
	if f == nil {
		return nil, fmt.Errorf("file descriptor %d (%s) is not open: the worker is started by `gosbi kernel`, which passes its pipes there", 3+i, name)
	}
	return f, nil
}
