package study

import "syscall"

// childAttr puts a script job in a process group of its own, which a cancelled run kills as a
// whole, and has the kernel kill it when the runner's thread that started it ends (Pdeathsig):
// a runner killed with SIGKILL leaves no orphaned job behind.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
