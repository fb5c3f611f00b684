package atomicfile

import (
	"errors"
	"fmt"
)

// ErrLockHeld is wrapped by the error of TryLock when another open file holds a lock of the
// file that conflicts with the one asked for.
var ErrLockHeld = errors.New("atomicfile: the lock is held by another open file")

// ErrNoLocks is the error of every lock operation (TryLock, Lock, Unlock) where the system has
// no file locks (Locks is ""); it wraps errors.ErrUnsupported. A file system that takes no
// lock on a system that has them (flock(2) on some NFS mounts) gives its own error instead,
// which may wrap errors.ErrUnsupported too (ENOTSUP): match this one to tell the two apart.
var ErrNoLocks = fmt.Errorf("atomicfile: this system has no file locks (flock(2) or LockFileEx): %w", errors.ErrUnsupported)
