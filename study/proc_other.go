//go:build unix && !linux

package study

import (
	"syscall"
	"time"
)

// childAttr puts a script job in a process group of its own, which a cancelled run kills as a
// whole. (Only Linux has Pdeathsig: elsewhere a runner killed with SIGKILL leaves its running
// script jobs to finish on their own.)
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// processStart is not known here: a marker's worker is taken to be alive while a process of
// its id exists.
func processStart(int) (time.Time, bool) { return time.Time{}, false }
