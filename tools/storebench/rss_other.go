//go:build !linux

package main

// peakRSSMB is not measured here (-1, as when it cannot be read): the unit of ru_maxrss
// differs between systems, and some have no getrusage(2).
func peakRSSMB() float64 { return -1 }
