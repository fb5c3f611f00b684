//go:build !windows

package atomicfile

import (
	"errors"
	"fmt"
	"os"
)

// SyncDir syncs the directory dir, so that a rename into it (os.Rename) survives a power
// loss. A file system that cannot sync a directory (errors.ErrUnsupported) is not an error.
// On Windows, where a directory cannot be synced, it does nothing.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
