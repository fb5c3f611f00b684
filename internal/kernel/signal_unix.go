//go:build unix

package kernel

import (
	"errors"
	"fmt"
	"os/exec"
	"syscall"
)

var signalNames = map[syscall.Signal]string{
	syscall.SIGKILL: "SIGKILL", syscall.SIGTERM: "SIGTERM", syscall.SIGSEGV: "SIGSEGV", syscall.SIGABRT: "SIGABRT",
	syscall.SIGBUS: "SIGBUS", syscall.SIGILL: "SIGILL", syscall.SIGFPE: "SIGFPE", syscall.SIGINT: "SIGINT",
	syscall.SIGHUP: "SIGHUP", syscall.SIGQUIT: "SIGQUIT", syscall.SIGPIPE: "SIGPIPE", syscall.SIGXCPU: "SIGXCPU",
}

// signalDeath describes the end of a process by a signal it did not handle, from the error of
// its Wait, or returns "" when it ended otherwise. SIGKILL, which nothing in the worker sends,
// is most often the out-of-memory killer's.
func signalDeath(waitErr error) string {
	var ee *exec.ExitError
	if !errors.As(waitErr, &ee) {
		return ""
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return ""
	}
	sig := ws.Signal()
	name := signalNames[sig]
	if name == "" {
		name = fmt.Sprintf("signal %d", int(sig))
	}
	s := fmt.Sprintf("the Go worker process was killed by %s (%v)", name, sig)
	if sig == syscall.SIGKILL {
		s += ", probably out of memory: the system's out-of-memory killer sends SIGKILL"
	}
	return s
}
