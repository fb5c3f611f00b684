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
// the worker: file descriptor 3+i. It fails if that descriptor is not open (on Unix; other
// systems cannot tell).
func InheritedPipe(i int, name string) (*os.File, error) {
	return inheritedFD(3+i, name)
}

// inheritedFD returns the open file descriptor fd as a file named name. It checks that fd is
// open first (fdOpen), as a file on a descriptor that is not would fail at its first use, or
// close another file when collected.
func inheritedFD(fd int, name string) (*os.File, error) {
	if err := fdOpen(fd); err != nil {
		return nil, fmt.Errorf("file descriptor %d (%s) is not open (%w): the worker is started by `gosbi kernel`, which passes its pipes there", fd, name, err)
	}
	return os.NewFile(uintptr(fd), name), nil
}
