//go:build windows

package ipc

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"golang.org/x/sys/windows"
)

// PassPipes passes files to the worker that cmd starts, in the order of RequestPipe to
// StderrWrite, as inherited handles that it finds named in HandlesEnv (see InheritedPipe).
// Windows has no descriptors to hand on by number: each file gets an inheritable duplicate,
// listed in the process's AdditionalInheritedHandles (Go starts a process with the handles it
// lists alone, so no other child inherits the duplicates). Call done once cmd has started, or
// failed to: it closes the duplicates, which the worker then holds alone.
func PassPipes(cmd *exec.Cmd, files []*os.File) (done func(), err error) {
	self := windows.CurrentProcess()
	dups := make([]syscall.Handle, 0, len(files))
	done = func() {
		for _, h := range dups {
			windows.CloseHandle(windows.Handle(h))
		}
	}
	handles := make([]uintptr, 0, len(files))
	for _, f := range files {
		var dup windows.Handle
		if err := windows.DuplicateHandle(self, windows.Handle(f.Fd()), self, &dup, 0, true, windows.DUPLICATE_SAME_ACCESS); err != nil {
			done()
			return nil, fmt.Errorf("pass %s to the worker: %w", f.Name(), err)
		}
		dups = append(dups, syscall.Handle(dup))
		handles = append(handles, uintptr(dup))
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.AdditionalInheritedHandles = append(cmd.SysProcAttr.AdditionalInheritedHandles, dups...)
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, HandlesEnv+"="+FormatHandles(handles))
	return done, nil
}

// InheritedPipe returns the pipe number i (RequestPipe to StderrWrite) that the front passed
// the worker: the inherited handle that HandlesEnv names. The first call reads HandlesEnv and
// removes it from the environment, and each handle is made non-inheritable, so that the
// commands a cell runs get neither the variable nor the pipes. It fails if the handle is not
// valid.
func InheritedPipe(i int, name string) (*os.File, error) {
	handles, err := inheritedHandles()
	if err != nil {
		return nil, err
	}
	if i >= len(handles) {
		return nil, fmt.Errorf("%s names %d handles, and the %s pipe is number %d: the front did not pass it", HandlesEnv, len(handles), name, i+1)
	}
	h := windows.Handle(handles[i])
	if err := windows.SetHandleInformation(h, windows.HANDLE_FLAG_INHERIT, 0); err != nil {
		return nil, fmt.Errorf("%s: handle %d (%s) is not valid (%w): the worker is started by `gosbi kernel`, which passes its pipes there", HandlesEnv, handles[i], name, err)
	}
	return os.NewFile(uintptr(h), name), nil
}

// inheritedHandles returns the handles named in HandlesEnv, which it reads once and unsets.
var inheritedHandles = sync.OnceValues(func() ([]uintptr, error) {
	v := os.Getenv(HandlesEnv)
	os.Unsetenv(HandlesEnv)
	return ParseHandles(v)
})
