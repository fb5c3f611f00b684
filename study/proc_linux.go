package study

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// childAttr puts a script job in a process group of its own, which a cancelled run kills as a
// whole, and has the kernel kill it when the runner's thread that started it ends (Pdeathsig):
// a runner killed with SIGKILL leaves no orphaned job behind.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// processStart returns when process pid started, from its /proc stat (field 22, clock ticks
// since boot) and the boot time of /proc/stat, and false where they cannot be read.
func processStart(pid int) (time.Time, bool) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return time.Time{}, false
	}
	// the command name (field 2) may hold spaces and parentheses: fields 3 on follow its last ')'
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 {
		return time.Time{}, false
	}
	fields := strings.Fields(string(stat[end+1:]))
	if len(fields) < 20 {
		return time.Time{}, false
	}
	ticks, err := strconv.ParseUint(fields[19], 10, 64) // field 22
	if err != nil {
		return time.Time{}, false
	}
	boot, ok := bootTime()
	if !ok {
		return time.Time{}, false
	}
	const ticksPerSecond = 100 // USER_HZ, fixed at 100 on Linux for the values /proc shows
	return boot.Add(time.Duration(ticks) * time.Second / ticksPerSecond), true
}

// readProcStat returns the contents of /proc/stat; tests replace it.
var readProcStat = func() ([]byte, error) { return os.ReadFile("/proc/stat") }

// bootTime returns the boot time of /proc/stat (btime, in whole seconds), read once per
// process: it does not change while the system runs, and every running marker checked needs it.
var bootTime = sync.OnceValues(func() (time.Time, bool) {
	data, err := readProcStat()
	if err != nil {
		return time.Time{}, false
	}
	return parseBootTime(data)
})

// parseBootTime returns the btime of the contents of /proc/stat, false where it has none.
func parseBootTime(data []byte) (time.Time, bool) {
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			if sec, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				return time.Unix(sec, 0), true
			}
		}
	}
	return time.Time{}, false
}
