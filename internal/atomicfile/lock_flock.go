//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockTemp takes an exclusive flock(2) lock on f, a temporary file just created, and returns
// a function that releases it. The lock is held through a duplicate of f's descriptor, which
// shares f's open file description and so its lock: Write closes f before the rename (to see
// the errors a close reports) and still holds the lock until the temporary name is gone.
// errTempTaken means that RemoveStale holds the lock (it may remove the file); a file system
// that takes no lock gives a release that does nothing, and the file is written unlocked.
func lockTemp(f *os.File) (release func(), err error) {
	if err := flockNB(f, syscall.LOCK_EX); errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, errTempTaken
	} else if err != nil {
		return func() {}, nil
	}
	syscall.ForkLock.RLock() // no child may inherit the duplicate before it is close-on-exec
	fd, err := syscall.Dup(int(f.Fd()))
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return nil, fmt.Errorf("atomicfile: holding the lock of %s: %w", f.Name(), err)
	}
	return func() { syscall.Close(fd) }, nil
}

// removeIfStale removes the temporary file at path when the writer that left it has ended (its
// lock can be taken), and reports whether it did. It holds a shared lock (which needs the file
// open for reading only, also on NFS) while it removes the file, so that a writer that created
// the file but has not locked it yet finds the lock taken and writes another. A file whose lock
// cannot be probed (no locks on the file system, no permission to open it) is kept, as nobody
// can tell whether its writer runs.
func removeIfStale(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if flockNB(f, syscall.LOCK_SH) != nil {
		return false
	}
	probed, err1 := f.Stat()
	now, err2 := os.Lstat(path)
	if err1 != nil || err2 != nil || !os.SameFile(probed, now) {
		return false
	}
	return os.Remove(path) == nil
}

// flockNB applies the flock(2) operation how (syscall.LOCK_SH, LOCK_EX or LOCK_UN) to f
// without waiting, trying again when a signal interrupts it: a lock held by another open file
// gives syscall.EWOULDBLOCK. It is the one way this package takes such locks without waiting,
// so that all of them treat a signal and a busy lock alike.
func flockNB(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// Locks names the file locks of this system, for messages; "" where it has none.
const Locks = "flock(2)"

// TryLock takes an exclusive lock on f, or a shared one, without waiting: flockNB with
// syscall.LOCK_EX or LOCK_SH. A lock that another open file holds gives an error that wraps
// ErrLockHeld (and syscall.EWOULDBLOCK); a file system that takes no lock gives its error.
func TryLock(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	err := flockNB(f, how)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return fmt.Errorf("%w (%w)", ErrLockHeld, err)
	}
	return err
}

// Unlock releases the lock that f holds.
func Unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// Lock takes an exclusive lock on f, waiting for it.
func Lock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }
