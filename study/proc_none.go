//go:build !unix && !windows

package study

import (
	"os/exec"
	"time"
)

// runGroup returns errNoRuns: no script job runs here (runsSupported).
func runGroup(*exec.Cmd) error { return errNoRuns }

// processExists cannot tell here whether a process runs: it says true, so that a marker that
// claims no lock is never taken for that of an ended worker (a run would remove it).
func processExists(int) bool { return true }

// processStart is not known here: a marker's worker is taken to be alive while a process of
// its id exists.
func processStart(int) (time.Time, bool) { return time.Time{}, false }
