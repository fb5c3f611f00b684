package atomicfile

import "errors"

// ErrLockHeld is wrapped by the error of TryLock when another open file holds a lock of the
// file that conflicts with the one asked for.
var ErrLockHeld = errors.New("atomicfile: the lock is held by another open file")
