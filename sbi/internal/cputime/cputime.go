// Package cputime measures the process CPU time of benchmarks, which the benchmarks of sbi
// and its sub-packages report beside the wall time: on a shared machine the wall time grows
// with the load of other processes, the CPU time much less. It is a test helper and holds
// nothing the library itself uses.
package cputime

import "testing"

// Run runs step b.N times, reporting allocations, and returns the CPU time the process spent
// meanwhile (user and system, summed over cores), in nanoseconds.
func Run(b *testing.B, step func()) float64 {
	b.ReportAllocs()
	b.ResetTimer()
	u0, s0 := processTimes()
	for i := 0; i < b.N; i++ {
		step()
	}
	u1, s1 := processTimes()
	b.StopTimer()
	return float64(u1-u0) + float64(s1-s0)
}

// Report is Run followed by reporting the CPU time per step as the metric cpu-ns/op.
func Report(b *testing.B, step func()) {
	cpu := Run(b, step)
	b.ReportMetric(cpu/float64(b.N), "cpu-ns/op")
}
