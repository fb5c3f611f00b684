package extend

import (
	"errors"
	"fmt"
	"os"

	"github.com/gosbi/gosbi/internal/atomicfile"
)

// lock takes an exclusive lock on the file name (created if need be), waiting for it, so that
// two sessions of one notebook directory do not write its build module at once. Where the
// system has no file locks at all (atomicfile.ErrNoLocks) it takes none, and concurrent builds
// of one notebook directory may then collide; a file system that takes no lock on a system that
// has them (flock(2) on some NFS mounts) is an error, as on it the collision could not be told.
func lock(name string) (unlock func(), err error) {
	f, err := os.OpenFile(name, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("extend: lock: %w", err)
	}
	if err := lockFile(f); err != nil && !errors.Is(err, atomicfile.ErrNoLocks) {
		f.Close()
		return nil, fmt.Errorf("extend: lock %s: %w", name, err)
	}
	return func() {
		atomicfile.Unlock(f)
		f.Close()
	}, nil
}

// lockFile takes the lock of lock; tests replace it.
var lockFile = atomicfile.Lock
