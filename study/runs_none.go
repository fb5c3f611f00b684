//go:build !unix && !windows

package study

import (
	"errors"
	"fmt"
	"runtime"
)

// errNoRuns is what Run, RunJob and `gosbi study run` and `worker` return on a system that is
// neither Unix nor Windows (Plan 9, js, wasip1): a run starts worker processes, kills a script
// job's process group when cancelled and tells a stale running marker by its process, none of
// which is done here. A study's results can still be read.
var errNoRuns = fmt.Errorf("study: study runs are not supported on %s (a run starts worker processes and tells their running markers by process): run the study on Linux or macOS, and read its results here: %w", runtime.GOOS, errors.ErrUnsupported)

// runsSupported returns errNoRuns: see there.
func runsSupported() error { return errNoRuns }
