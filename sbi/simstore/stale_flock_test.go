//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package simstore

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestStaleTempRemoved: the hidden temporary file of an append that was killed while it wrote
// (nobody holds its lock) is removed when the store is next opened; one whose lock is held (an
// append under way, here a second open file description of this process) is kept, and so is a
// hidden file that is no append's.
func TestStaleTempRemoved(t *testing.T) {
	for _, c := range []struct {
		name   string
		file   string
		locked bool
		kept   bool
	}{
		{"stale", staleTempName, false, false},
		{"being written", staleTempName, true, true},
		{"not an append's", ".notes", false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := Create(dir, 2, 3); err != nil {
				t.Fatal(err)
			}
			path := writeTemp(t, dir, c.file)
			if c.locked {
				f, err := os.OpenFile(path, os.O_RDWR, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := Open(dir); err != nil {
				t.Fatal(err)
			}
			if kept := exists(t, path); kept != c.kept {
				t.Errorf("after Open, %s kept %v; want %v", c.file, kept, c.kept)
			}
		})
	}
}

// TestAppendLeavesStaleTemp: Append does not list chunks/ for stale temporary files, which
// would make each append cost more as the chunks grow; the next Open removes them.
func TestAppendLeavesStaleTemp(t *testing.T) {
	dir := t.TempDir()
	s, err := Create(dir, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	path := writeTemp(t, dir, staleTempName)
	if err := s.Append(pairs(0, 4)); err != nil {
		t.Fatal(err)
	}
	if !exists(t, path) {
		t.Fatal("Append removed a stale temporary file; want it left to Open")
	}
	if _, err := Open(dir); err != nil {
		t.Fatal(err)
	}
	if exists(t, path) {
		t.Error("Open kept a stale temporary file")
	}
}

// staleTempName is the name of an append's temporary file, as atomicfile gives it.
const staleTempName = ".00000000000000000001-4242-0011223344556677.npz.tmp-0123456789ab"

// writeTemp writes a part of a chunk to name in the store's chunks/ and returns its path.
func writeTemp(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, chunkDir, name)
	if err := os.WriteFile(path, []byte("PK\x03\x04 part of a chunk"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// exists reports whether path exists, failing the test on any error but its absence.
func exists(t *testing.T, path string) bool {
	t.Helper()
	_, err := os.Stat(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return err == nil
}
