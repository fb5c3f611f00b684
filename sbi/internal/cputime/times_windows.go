//go:build windows

package cputime

import "golang.org/x/sys/windows"

// measured is true: processTimes reads the process CPU time on this system.
const measured = true

// processTimes returns the user and system CPU time of the process so far, in nanoseconds
// (GetProcessTimes, which counts in units of 100 ns).
func processTimes() (user, system int64) {
	var creation, exit, kernel, usr windows.Filetime
	_ = windows.GetProcessTimes(windows.CurrentProcess(), &creation, &exit, &kernel, &usr)
	return hundredNanos(usr), hundredNanos(kernel)
}

// hundredNanos converts a duration in units of 100 ns to nanoseconds.
func hundredNanos(t windows.Filetime) int64 {
	return (int64(t.HighDateTime)<<32 | int64(t.LowDateTime)) * 100
}
