//go:build windows

package study

import (
	"errors"
	"fmt"
)

// errNoRuns is what Run, RunJob and `gosbi study run` and `worker` return on Windows. A
// worker's running marker is renamed into place while the worker holds it open for its lock,
// and Go opens files without FILE_SHARE_DELETE, so Windows would refuse the rename; rather than
// a study that fails at its first job, none runs. A study's results can still be read.
var errNoRuns = fmt.Errorf("study: study runs are not supported on Windows yet (a worker's running marker is renamed while the worker holds it open, which Windows refuses): run the study under WSL, or on Linux or macOS, and read its results here: %w", errors.ErrUnsupported)

// runsSupported returns errNoRuns: see there.
func runsSupported() error { return errNoRuns }
