//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package atomicfile

import "os"

// lockTemp takes no lock where the system has no flock(2): the temporary file is written
// unlocked.
func lockTemp(*os.File) (release func(), err error) { return func() {}, nil }

// removeIfStale keeps every temporary file where locks cannot be probed: nobody can tell
// whether its writer has ended.
func removeIfStale(string) bool { return false }
