//go:build unix

package study

import (
	"errors"
	"os/exec"
	"runtime"
	"syscall"
)

// runGroup runs cmd in a process group of its own (childAttr) and waits for it; cancelling
// cmd's context kills the group, the script and whatever it started. The goroutine stays on
// its thread until the child has ended, because Linux sends Pdeathsig when the thread that
// started the child ends, not only the process.
func runGroup(cmd *exec.Cmd) error {
	cmd.SysProcAttr = childAttr()
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return cmd.Run()
}

// processExists reports whether a process of id pid exists (one of another user included).
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
