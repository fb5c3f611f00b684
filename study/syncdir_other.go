//go:build !windows

package study

import (
	"errors"
	"fmt"
	"os"
)

// syncDir syncs the directory dir, so that a rename into it survives a power loss.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("study: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("study: syncing %s: %w", dir, err)
	}
	return nil
}
