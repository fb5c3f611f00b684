package study

import (
	"errors"
	"os"
	"testing"
	"time"
)

// TestBootTimeReadOnce: the boot time is read from /proc/stat once per process, not again for
// every running marker checked, and processStart goes on giving the start of this process.
func TestBootTimeReadOnce(t *testing.T) {
	first, ok := bootTime()
	if !ok {
		t.Fatal("no boot time in /proc/stat")
	}
	defer func(old func() ([]byte, error)) { readProcStat = old }(readProcStat)
	reads := 0
	readProcStat = func() ([]byte, error) {
		reads++
		return nil, errors.New("read again")
	}
	for range 3 {
		if got, ok := bootTime(); !ok || !got.Equal(first) {
			t.Errorf("boot time %v, %v; want %v as read first", got, ok, first)
		}
	}
	start, ok := processStart(os.Getpid())
	if !ok || start.Before(first) || start.After(time.Now()) {
		t.Errorf("start of this process %v, %v; want a time between boot (%v) and now", start, ok, first)
	}
	if reads != 0 {
		t.Errorf("/proc/stat read %d more times, want once in all", reads)
	}
}

// TestParseBootTime reads btime from the contents of /proc/stat.
func TestParseBootTime(t *testing.T) {
	for _, c := range []struct {
		name, data string
		want       int64
		ok         bool
	}{
		{"btime among other lines", "cpu  1 2 3\nbtime 1700000000\nprocesses 5\n", 1700000000, true},
		{"no btime", "cpu  1 2 3\nprocesses 5\n", 0, false},
		{"btime not a number", "btime soon\n", 0, false},
		{"empty", "", 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := parseBootTime([]byte(c.data))
			if ok != c.ok || ok && got.Unix() != c.want {
				t.Errorf("parseBootTime = %v, %v; want %d, %v", got, ok, c.want, c.ok)
			}
		})
	}
}
