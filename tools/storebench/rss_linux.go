package main

import "syscall"

// peakRSSMB is the process's peak resident set size so far, in MB (ru_maxrss is in KiB on
// Linux).
func peakRSSMB() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return float64(ru.Maxrss) * 1024 / 1e6
}
