//go:build !js && !plan9

package study

import "syscall"

// jobEndSignals are the signals that Slurm and the kernel end a job with, which exitAs passes
// on by ending this process with the same signal.
var jobEndSignals = []syscall.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL}
