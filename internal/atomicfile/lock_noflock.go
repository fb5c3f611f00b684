//go:build !(darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd || windows)

package atomicfile

import "os"

// Locks names the file locks of this system, for messages: this one has neither flock(2) nor
// LockFileEx, and its callers judge what a lock would tell them otherwise, or say that they
// cannot.
const Locks = ""

// lockTemp takes no lock where the system has no file locks: the temporary file is written
// unlocked.
func lockTemp(*os.File) (release func(), err error) { return func() {}, nil }

// removeIfStale keeps every temporary file where locks cannot be probed: nobody can tell
// whether its writer has ended.
func removeIfStale(string) bool { return false }

// TryLock takes no lock where the system has no file locks: it returns ErrNoLocks, which wraps
// errors.ErrUnsupported, as a file system without locks gives an error.
func TryLock(*os.File, bool) error { return ErrNoLocks }

// Unlock returns ErrNoLocks: no lock was taken.
func Unlock(*os.File) error { return ErrNoLocks }

// Lock returns ErrNoLocks: no lock can be taken.
func Lock(*os.File) error { return ErrNoLocks }
