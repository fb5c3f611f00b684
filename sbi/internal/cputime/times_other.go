//go:build !unix && !windows

package cputime

// measured is false: the process CPU time is not read on this system (Plan 9, js and wasip1
// have no getrusage), and Run returns NaN.
const measured = false

// processTimes returns zeros: see measured.
func processTimes() (user, system int64) { return 0, 0 }
