package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestRunMeasuresCPU checks that a step that spins for 2 ms of wall time is charged CPU time
// of the same order (at least a quarter of it: the spinning goroutine holds a core while it
// runs, however loaded the machine is), and a step that sleeps as long is charged far less.
// Where the CPU time is not read (measured is false) the test cannot decide, and fails saying so.
func TestRunMeasuresCPU(t *testing.T) {
	if !measured {
		t.Fatalf("inconclusive: the process CPU time is not read on %s (Run returns NaN)", runtime.GOOS)
	}
	const d = 2 * time.Millisecond
	spin := func() {
		for t0 := time.Now(); time.Since(t0) < d; {
		}
	}
	sleep := func() { time.Sleep(d) }
	for _, c := range []struct {
		name     string
		step     func()
		min, max float64 // bounds of CPU time per step over d
	}{
		{"spin", spin, 0.25, 4},
		{"sleep", sleep, 0, 0.25},
	} {
		var cpu float64
		var n int
		testing.Benchmark(func(b *testing.B) {
			cpu, n = Run(b, c.step), b.N
		})
		r := cpu / float64(n) / float64(d.Nanoseconds())
		if r < c.min || r > c.max {
			t.Errorf("%s: CPU time per step is %.2f of the step's %v, want %v…%v", c.name, r, d, c.min, c.max)
		}
	}
}
