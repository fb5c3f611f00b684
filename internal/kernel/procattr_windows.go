//go:build windows

package kernel

import (
	"os/exec"
	"syscall"
)

// workerProcAttr starts the worker in a console process group of its own, which Windows starts
// with Ctrl-C ignored: Ctrl-C (not Ctrl-Break, which the group still gets) in the console
// reaches the front alone, which interrupts the cell over the request pipe instead of the
// worker dying of it with the session's state. Windows has no parent-death signal: the worker
// ends when it reads the end of its request pipe, which the front's end closes.
func workerProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}
