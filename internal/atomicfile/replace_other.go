//go:build !windows

package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// replace renames tmp over target and syncs their directory, so that the rename itself
// survives a power loss.
func replace(tmp, target string) error {
	if err := os.Rename(tmp, target); err != nil {
		return err
	}
	return syncDir(filepath.Dir(target))
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
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
