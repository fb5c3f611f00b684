package extend

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/internal/atomicfile"
)

// TestLockNoLocks checks that lock proceeds without a lock only where the system has no file
// locks at all (atomicfile.ErrNoLocks), and that a file system which takes no lock on a
// system that has them (flock on some NFS mounts fails with ENOTSUP, which wraps
// errors.ErrUnsupported too) is an error that names the lock file.
func TestLockNoLocks(t *testing.T) {
	defer func(f func(*os.File) error) { lockFile = f }(lockFile)
	for _, c := range []struct {
		name    string
		err     error
		wantErr bool
	}{
		{"locked", nil, false},
		{"system without file locks", atomicfile.ErrNoLocks, false},
		{"file system without flock", fmt.Errorf("operation not supported: %w", errors.ErrUnsupported), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			lockFile = func(*os.File) error { return c.err }
			name := filepath.Join(t.TempDir(), "m.lock")
			unlock, err := lock(name)
			if c.wantErr {
				if err == nil || !strings.Contains(err.Error(), name) {
					t.Fatalf("lock: error %v, want one that names %s", err, name)
				}
				return
			}
			if err != nil {
				t.Fatalf("lock: %v", err)
			}
			unlock()
		})
	}
}
