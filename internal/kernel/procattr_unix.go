//go:build unix && !linux

package kernel

import (
	"os/exec"
	"syscall"
)

// workerProcAttr starts the worker in a process group of its own, so that a signal to the
// front's group (Ctrl-C in a terminal) reaches the front alone, which interrupts the cell over
// the request pipe. The system has no parent-death signal: the worker ends when it reads the
// end of its request pipe, which the front's end closes.
func workerProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
