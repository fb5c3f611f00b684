// Package cputime measures the process CPU time of benchmarks, which the benchmarks of sbi
// and its sub-packages report beside the wall time: on a shared machine the wall time grows
// with the load of other processes, the CPU time much less. It is a test helper and holds
// nothing the library itself uses.
package cputime

import (
	"syscall"
	"testing"
)

// Run runs step b.N times, reporting allocations, and returns the CPU time the process spent
// meanwhile (user and system, summed over cores), in nanoseconds.
func Run(b *testing.B, step func()) float64 {
	b.ReportAllocs()
	var r0, r1 syscall.Rusage
	b.ResetTimer()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
	for i := 0; i < b.N; i++ {
		step()
	}
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
	b.StopTimer()
	return float64(r1.Utime.Nano()-r0.Utime.Nano()) + float64(r1.Stime.Nano()-r0.Stime.Nano())
}

// Report is Run followed by reporting the CPU time per step as the metric cpu-ns/op.
func Report(b *testing.B, step func()) {
	cpu := Run(b, step)
	b.ReportMetric(cpu/float64(b.N), "cpu-ns/op")
}
