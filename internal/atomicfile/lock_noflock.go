//go:build !(darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd)

package atomicfile

import (
	"errors"
	"fmt"
	"os"
)

// lockTemp takes no lock where the system has no flock(2): the temporary file is written
// unlocked.
func lockTemp(*os.File) (release func(), err error) { return func() {}, nil }

// removeIfStale keeps every temporary file where locks cannot be probed: nobody can tell
// whether its writer has ended.
func removeIfStale(string) bool { return false }

// FlockNB takes no lock where the system has no flock(2): it returns an error that wraps
// errors.ErrUnsupported, as a file system without locks gives an error.
func FlockNB(*os.File, int) error {
	return fmt.Errorf("atomicfile: flock: %w", errors.ErrUnsupported)
}
