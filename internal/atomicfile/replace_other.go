//go:build !windows

package atomicfile

import (
	"os"
	"path/filepath"
)

// replace renames tmp over target and syncs their directory, so that the rename itself
// survives a power loss.
func replace(tmp, target string) error {
	if err := os.Rename(tmp, target); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(target))
}
