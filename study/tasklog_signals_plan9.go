//go:build plan9

package study

import "os"

// exitSignaled returns at once: Plan 9 ends a process with a note, not a signal, and its exit
// status is left to exitAs.
func exitSignaled(ps *os.ProcessState, msg string) {}
