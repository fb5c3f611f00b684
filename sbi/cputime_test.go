package sbi

import (
	"syscall"
	"testing"
)

// reportCPU runs f b.N times and reports, besides the wall time, the process CPU time per
// call (cpu-ns/op, summed over cores): on a shared machine the wall time grows with the load
// of other processes, the CPU time much less.
func reportCPU(b *testing.B, f func()) {
	b.ReportAllocs()
	var r0, r1 syscall.Rusage
	b.ResetTimer()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
	for i := 0; i < b.N; i++ {
		f()
	}
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
	b.StopTimer()
	cpu := r1.Utime.Nano() - r0.Utime.Nano() + r1.Stime.Nano() - r0.Stime.Nano()
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
}

// ReportCPU is reportCPU for the external benchmarks.
var ReportCPU = reportCPU
