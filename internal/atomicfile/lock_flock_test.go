//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// lockOther takes a lock of kind how on the file at path through an open file description of
// its own, as another process would; the test's end releases it.
func lockOther(t *testing.T, path string, how int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		t.Fatalf("locking %s: %v", path, err)
	}
}

// TestWriteLocksItsTemp: while Write writes, its temporary file is locked, so that RemoveStale
// keeps it and the write ends well; the lock is gone with the temporary file.
func TestWriteLocksItsTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	var temps, removed []string
	var probe error
	err := Write(path, 0o644, func(w io.Writer) error {
		temps, _ = filepath.Glob(filepath.Join(dir, ".f.txt.tmp-*"))
		if len(temps) == 1 {
			f, err := os.Open(temps[0])
			if err != nil {
				return err
			}
			probe = syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
			f.Close()
		}
		removed, _ = RemoveStale(dir)
		_, err := io.WriteString(w, "new")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(temps) != 1 || !errors.Is(probe, syscall.EWOULDBLOCK) {
		t.Errorf("temporary files while writing: %v, probe of its lock: %v; want one, locked (EWOULDBLOCK)", temps, probe)
	}
	if len(removed) != 0 {
		t.Errorf("RemoveStale removed %v while Write wrote", removed)
	}
	if data, _ := os.ReadFile(path); string(data) != "new" {
		t.Errorf("the file holds %q, want %q", data, "new")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".f.txt.tmp-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestRemoveStale: RemoveStale removes the temporary files of Writes whose lock is free (their
// writer was killed) and keeps those whose lock is held, and every file that is no Write's
// temporary file.
func TestRemoveStale(t *testing.T) {
	cases := []struct {
		name   string
		lock   int // a lock another open file description holds on it (0: none)
		dir    bool
		kept   bool
		reason string
	}{
		{".f.txt.tmp-0123456789ab", 0, false, false, "a stale temporary file"},
		{".g.tmp-0123456789ab", syscall.LOCK_EX, false, true, "being written"},
		{".h.tmp-0123456789ab", syscall.LOCK_SH, false, false, "stale, and probed by another RemoveStale"},
		{"f.txt.tmp-0123456789ab", 0, false, true, "not hidden"},
		{".f.txt.tmp-0123456789AB", 0, false, true, "not the digits Write gives"},
		{".f.txt.tmp-0123456789", 0, false, true, "too few digits"},
		{".f.txt.check-0123456789ab", 0, false, true, "Writable's check"},
		{".d.tmp-0123456789ab", 0, true, true, "a directory"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		path := filepath.Join(dir, c.name)
		var err error
		if c.dir {
			err = os.Mkdir(path, 0o755)
		} else {
			err = os.WriteFile(path, []byte("part"), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
		if c.lock != 0 {
			lockOther(t, path, c.lock)
		}
	}
	removed, err := RemoveStale(dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, c := range cases {
		path := filepath.Join(dir, c.name)
		_, err := os.Stat(path)
		if kept := err == nil; kept != c.kept {
			t.Errorf("%s (%s): kept %v, want %v", c.name, c.reason, kept, c.kept)
		}
		if !c.kept {
			want = append(want, path)
		}
	}
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Errorf("RemoveStale returned %v, want %v", removed, want)
	}
	if _, err := RemoveStale(filepath.Join(dir, "absent")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("RemoveStale of a missing directory: %v, want an error wrapping ErrNotExist", err)
	}
}

// TestCreateTempTakenByRemoveStale: a temporary file whose lock RemoveStale took between its
// creation and Write's lock is left to it (errTempTaken), and one it removed in that time is
// found unlinked, so that Write goes on with another name in both cases.
func TestCreateTempTakenByRemoveStale(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, tempName("f"))
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lockOther(t, path, syscall.LOCK_SH)
	if _, err := lockTemp(f); !errors.Is(err, errTempTaken) {
		t.Errorf("lockTemp of a file RemoveStale holds: %v, want errTempTaken", err)
	}
	g, err := os.Create(filepath.Join(dir, tempName("g")))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	os.Remove(g.Name())
	if linked(g, g.Name()) {
		t.Errorf("linked reports a removed file as linked")
	}
	if !linked(f, path) {
		t.Errorf("linked reports a file in place as removed")
	}
}
