//go:build js

package study

import "syscall"

// jobEndSignals are the signals that end a job, which exitAs passes on by ending this process
// with the same signal; js/wasm has no SIGHUP (and runs no Slurm job).
var jobEndSignals = []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL}
