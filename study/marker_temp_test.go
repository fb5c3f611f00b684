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
	"time"

	"github.com/gosbi/gosbi/internal/atomicfile"
)

// TestCleanRemovesStaleMarkerTemps: a worker killed between creating its running marker's
// temporary file and renaming it leaves a hidden file in running/ (named as atomicfile's
// temporary files); a run removes it, as its lock is free, and keeps one whose lock is held (a
// worker writing its marker now); a marker written afterwards is in place and held.
func TestCleanRemovesStaleMarkerTemps(t *testing.T) {
	s := damagedStudy(t)
	dir := filepath.Join(s.Dir, "running")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, ".00001.json.tmp-0123456789ab")
	busy := filepath.Join(dir, ".00002.json.tmp-abcdef012345")
	for _, p := range []string{stale, busy} {
		if err := os.WriteFile(p, []byte(`{"host": "h", "pid": 4242}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(busy)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := atomicfile.TryLock(f, true); err != nil {
		t.Fatal(err)
	}
	if err := s.run(context.Background(), &Local{Workers: 1}, false, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the temporary file of a killed worker is left: %v", err)
	}
	if _, err := os.Stat(busy); err != nil {
		t.Errorf("the temporary file whose lock is held was removed: %v", err)
	}
	if !s.Status().Complete() {
		t.Errorf("after the run: %s", s.Status().Line())
	}

	// A marker written now, through a temporary file of the kind above, is in place and its
	// lock held.
	a := new(attempt)
	if err := a.mark(s.runningPath(0), "elsewhere.invalid", time.Now().UTC()); err != nil {
		t.Fatal(err)
	}
	defer a.marker.Close()
	if live, err := s.runningMarker(0); !live || err != nil {
		t.Errorf("a marker just written: runningMarker %v, %v; want live", live, err)
	}
}
