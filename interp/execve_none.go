//go:build js || wasip1

package interp

import (
	"errors"
	"fmt"
	"runtime"
)

// execve cannot replace the process here: js and wasip1 have no exec. The session goes on in
// this process, which cannot link the extension (see execInto's callers).
func execve(string, []string, []string) error {
	return fmt.Errorf("a session moves to a new worker process to link extensions, and %s cannot start one: %w", runtime.GOOS, errors.ErrUnsupported)
}
