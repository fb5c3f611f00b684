package study

import (
	"runtime"
	"testing"
)

// TestMemoryShare checks the GOMEMLIMIT given to script jobs run side by side: 80% of the
// machine's memory shared equally, and the machine's memory read where /proc/meminfo exists.
func TestMemoryShare(t *testing.T) {
	const gib = 1 << 30
	for _, tc := range []struct {
		total   uint64
		workers int
		want    uint64
	}{
		{24 * gib, 2, 24 * gib / 5 * 4 / 2},
		{10 * gib, 1, 8 * gib},
		{10 * gib, 0, 8 * gib}, // no workers counts as one
		{16 * gib, 16, 16 * gib / 5 * 4 / 16},
	} {
		if got := memoryShare(tc.total, tc.workers); got != tc.want {
			t.Errorf("memoryShare(%d, %d) = %d, want %d", tc.total, tc.workers, got, tc.want)
		}
	}
	got := physicalMemory()
	if runtime.GOOS == "linux" && got < 64<<20 {
		t.Errorf("physicalMemory() = %d bytes on Linux, want the MemTotal of /proc/meminfo", got)
	}
	t.Logf("physical memory %.1f GiB", float64(got)/gib)
}
