//go:build windows

package study

import (
	"errors"
	"os/exec"
	"time"

	"golang.org/x/sys/windows"
)

// runGroup runs cmd and waits for it; cancelling cmd's context kills the script's process.
// Windows has no process groups to kill as a whole: what the script itself started is left
// to end on its own.
func runGroup(cmd *exec.Cmd) error { return cmd.Run() }

// processExists reports whether a process of id pid runs: one that may not be opened (of
// another user) is taken to run.
func processExists(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		return true
	}
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return true
	}
	return code == stillActive
}

// stillActive is the exit code GetExitCodeProcess gives for a process that runs (STILL_ACTIVE);
// a process that ended with this very code is taken to run.
const stillActive = 259

// processStart is not known here: a marker's worker is taken to be alive while a process of
// its id exists.
func processStart(int) (time.Time, bool) { return time.Time{}, false }
