//go:build unix

package nbtest

import (
	"os/exec"
	"syscall"
)

// kernelProcAttr starts the kernel in a process group of its own, so that Ctrl-C in a
// terminal, which sends SIGINT to the whole foreground group, reaches gosbi run alone, whose
// handler decides what it does (Config.Stop). The kernel still ends with gosbi run: it shuts
// down, with its worker, when the process that started it is gone.
func kernelProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
