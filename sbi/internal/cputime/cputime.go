// Package cputime measures the process CPU time of benchmarks, which the benchmarks of sbi
// and its sub-packages report beside the wall time: on a shared machine the wall time grows
// with the load of other processes, the CPU time much less. It is a test helper and holds
// nothing the library itself uses.
package cputime

import (
	"math"
	"runtime"
	"testing"
)

// Run runs step b.N times, reporting allocations, and returns the CPU time the process spent
// meanwhile (user and system, summed over cores), in nanoseconds. On a system where the CPU
// time is not read (Plan 9, js, wasip1) it returns NaN, and says so in the benchmark's log.
func Run(b *testing.B, step func()) float64 {
	b.ReportAllocs()
	if !measured {
		b.Logf("cputime: inconclusive: the process CPU time is not read on %s; only the wall time is measured", runtime.GOOS)
	}
	b.ResetTimer()
	u0, s0 := processTimes()
	for i := 0; i < b.N; i++ {
		step()
	}
	u1, s1 := processTimes()
	b.StopTimer()
	if !measured {
		return math.NaN()
	}
	return float64(u1-u0) + float64(s1-s0)
}

// Report is Run followed by reporting the CPU time per step as the metric cpu-ns/op, where it
// is measured.
func Report(b *testing.B, step func()) {
	cpu := Run(b, step)
	if math.IsNaN(cpu) {
		return
	}
	b.ReportMetric(cpu/float64(b.N), "cpu-ns/op")
}
