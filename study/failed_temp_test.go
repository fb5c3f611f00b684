//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

// atomicfile.RemoveStale judges temporary files by their flock(2) locks; elsewhere (Windows)
// it keeps them all, so the removal this test checks happens only on these systems.

package study

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gosbi/gosbi/internal/atomicfile"
)

// TestCleanRemovesStaleFailureTemps: a worker killed while writing a job's failure note leaves
// a hidden temporary file in failed/ (named as atomicfile's temporary files); a run removes it,
// as its lock is free, and keeps one whose lock is held (a note being written now), and a file
// that is not atomicfile's temporary file.
func TestCleanRemovesStaleFailureTemps(t *testing.T) {
	s := damagedStudy(t)
	dir := filepath.Join(s.Dir, "failed")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		held bool // the test holds the file's lock, as a worker writing it does
		kept bool
	}{
		{".00001.json.tmp-0123456789ab", false, false},
		{".00002.json.tmp-abcdef012345", true, true},
		{".00000.json.tmp-123", false, true}, // not a name atomicfile gives: not judged
	}
	for _, c := range cases {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(`{"index": 1, "attempts": 1`), 0o600); err != nil {
			t.Fatal(err)
		}
		if c.held {
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := atomicfile.TryLock(f, true); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := s.run(context.Background(), &Local{Workers: 1}, false, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		_, err := os.Stat(filepath.Join(dir, c.name))
		if c.kept && err != nil {
			t.Errorf("%s (lock held %v) was removed: %v", c.name, c.held, err)
		}
		if !c.kept && !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s, the temporary file of a killed write, is left: %v", c.name, err)
		}
	}
	if !s.Status().Complete() {
		t.Errorf("after the run: %s", s.Status().Line())
	}
}
