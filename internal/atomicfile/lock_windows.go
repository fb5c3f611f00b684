//go:build windows

package atomicfile

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// Locks names the file locks of this system, for messages.
const Locks = "LockFileEx"

// A Windows lock covers a byte range of the file, and it is mandatory: an exclusive lock
// denies every other handle (also of the same process) reading and writing the range, a
// shared one writing it. The locks of this package cover one byte at lockOffset, far beyond
// the end of any file the module writes (locking past the end of a file is not an error), so
// that a lock never stops another process from reading the holder's content: the identity in
// a study's lock file, a running marker. Like a flock(2) lock, a LockFileEx lock belongs to an
// open file (its handle), conflicts with the locks of every other open file, and is released
// when the file is closed or its process ends.
//
// The locks cannot be tested on the machines that build this module; they follow the
// documentation of LockFileEx and UnlockFileEx: a handle that os.OpenFile opened is
// synchronous, so a lock without LOCKFILE_FAIL_IMMEDIATELY waits for the range, and with it
// fails at once with ERROR_LOCK_VIOLATION.
const lockOffset = 1 << 62

// lockRange returns the overlapped structure that gives the offset of the locked byte.
func lockRange() *windows.Overlapped {
	return &windows.Overlapped{Offset: uint32(lockOffset & 0xffffffff), OffsetHigh: uint32(lockOffset >> 32)}
}

// lockTemp takes no lock on Windows: a file that a handle holds open (os.OpenFile does not
// share deletion) cannot be renamed, so a lock cannot be held through the rename as it is
// where files have flock(2). The temporary file is written unlocked.
func lockTemp(*os.File) (release func(), err error) { return func() {}, nil }

// removeIfStale keeps every temporary file: its writer held no lock, and nobody can tell
// whether it has ended.
func removeIfStale(string) bool { return false }

// TryLock takes an exclusive lock on f, or a shared one, without waiting. A lock that another
// open file holds gives an error that wraps ErrLockHeld (and ERROR_LOCK_VIOLATION); a file
// system that takes no lock gives its error.
func TryLock(f *os.File, exclusive bool) error {
	flags := uint32(windows.LOCKFILE_FAIL_IMMEDIATELY)
	if exclusive {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, lockRange())
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return fmt.Errorf("%w (%w)", ErrLockHeld, err)
	}
	return err
}

// Unlock releases the lock that f holds.
func Unlock(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, lockRange())
}

// Lock takes an exclusive lock on f, waiting for it.
func Lock(f *os.File) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, lockRange())
}
