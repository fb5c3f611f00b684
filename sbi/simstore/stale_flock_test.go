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
// (nobody holds its lock) is removed when the store is next opened or appended to; one whose
// lock is held (an append under way, here a second open file description of this process) is
// kept, and so is a hidden file that is no append's.
func TestStaleTempRemoved(t *testing.T) {
	const (
		tempName  = ".00000000000000000001-4242-0011223344556677.npz.tmp-0123456789ab"
		otherName = ".notes"
	)
	for _, when := range []string{"Open", "Append"} {
		for _, c := range []struct {
			name   string
			file   string
			locked bool
			kept   bool
		}{
			{"stale", tempName, false, false},
			{"being written", tempName, true, true},
			{"not an append's", otherName, false, true},
		} {
			t.Run(when+"/"+c.name, func(t *testing.T) {
				dir := t.TempDir()
				s, err := Create(dir, 2, 3)
				if err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(dir, chunkDir, c.file)
				if err := os.WriteFile(path, []byte("PK\x03\x04 part of a chunk"), 0o644); err != nil {
					t.Fatal(err)
				}
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
				switch when {
				case "Open":
					_, err = Open(dir)
				case "Append":
					err = s.Append(pairs(0, 4))
				}
				if err != nil {
					t.Fatalf("%s: %v", when, err)
				}
				_, err = os.Stat(path)
				if kept := err == nil; kept != c.kept || (!kept && !errors.Is(err, fs.ErrNotExist)) {
					t.Errorf("after %s, %s: %v; want kept %v", when, c.file, err, c.kept)
				}
			})
		}
	}
}
