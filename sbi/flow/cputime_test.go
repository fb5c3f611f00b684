package flow

import (
	"syscall"
	"testing"
)

// benchCPU runs step b.N times and reports, besides wall time, the process CPU time per
// step (cpu-ns/op): on a shared machine the wall time grows with the load of other
// processes, the CPU time much less.
func benchCPU(b *testing.B, step func()) {
	b.ReportAllocs()
	var r0, r1 syscall.Rusage
	b.ResetTimer()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
	for i := 0; i < b.N; i++ {
		step()
	}
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
	b.StopTimer()
	cpu := float64(r1.Utime.Nano()-r0.Utime.Nano()) + float64(r1.Stime.Nano()-r0.Stime.Nano())
	b.ReportMetric(cpu/float64(b.N), "cpu-ns/op")
}
