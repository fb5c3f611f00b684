//go:build unix && !linux

package study

import "syscall"

// childAttr puts a script job in a process group of its own, which a cancelled run kills as a
// whole. (Only Linux has Pdeathsig: elsewhere a runner killed with SIGKILL leaves its running
// script jobs to finish on their own.)
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
