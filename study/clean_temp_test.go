//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

// atomicfile.RemoveStale judges temporary files by their flock(2) locks; elsewhere (Windows)
// it keeps them all, so the removals this test checks happen only on these systems.

package study

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCleanRemovesStaleTemps: a run removes the temporary files that killed workers left, and
// keeps those that may still be written. Each case is a file in running/ or failed/:
//
//   - running/, atomicfile's naming: a worker killed between creating its running marker's
//     temporary file and renaming it leaves one; a run removes it, as its lock is free, and
//     keeps one whose lock is held (a worker writing its marker now).
//   - failed/, atomicfile's naming: a worker killed while writing a job's failure note leaves
//     one; a run removes it as its lock is free, and keeps one whose lock is held (a note being
//     written now) and a file that is not atomicfile's temporary file.
//   - running/, the namings of gosbi versions before atomicfile.CreateTemp (os.CreateTemp's
//     ".NNNNN.json.tmp" and decimal digits, later ".NNNNN.json.tmp-" and decimal digits; the
//     last of them locked the file after creating it and wrote "flock": true), which
//     atomicfile.RemoveStale does not take for its own: a run removes those whose worker has
//     certainly ended, judged as a marker is (by its lock where it claims one, else by its
//     process where it is of this host), and keeps the others: a live or unknown worker, or a
//     file that holds no marker yet.
//
// None of them is counted as a job's marker or as damaged, before the run or after it; and a
// marker written after the run, through a temporary file of atomicfile's kind, is in place and
// its lock held.
func TestCleanRemovesStaleTemps(t *testing.T) {
	requireStudyRuns(t)
	host, _ := os.Hostname()
	now := time.Now().UTC()
	marker := func(m map[string]any) string {
		data, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	const note = `{"index": 1, "attempts": 1`
	cases := []struct {
		name, dir, file string
		data            string // "": the file is empty
		held            bool   // the test holds the file's lock, as a worker writing it does
		removed         bool
	}{
		{"marker, lock free", "running", ".00001.json.tmp-0123456789ab", `{"host": "h", "pid": 4242}`, false, true},
		{"marker, lock held", "running", ".00002.json.tmp-abcdef012345", `{"host": "h", "pid": 4242}`, true, false},

		{"failure note, lock free", "failed", ".00001.json.tmp-0123456789ab", note, false, true},
		{"failure note, lock held", "failed", ".00002.json.tmp-abcdef012345", note, true, false},
		{"failure note, not a name atomicfile gives", "failed", ".00000.json.tmp-123", note, false, false},

		{"old marker, first naming, ended process of this host", "running", ".00001.json.tmp123456", marker(map[string]any{"host": host, "pid": deadPID(t), "started": now}), false, true},
		{"old marker, second naming, ended process of this host", "running", ".00002.json.tmp-987654321", marker(map[string]any{"host": host, "pid": deadPID(t), "started": now}), false, true},
		{"old marker, locked naming, lock free", "running", ".00000.json.tmp-4242", marker(map[string]any{"host": "elsewhere.invalid", "pid": 4242, "started": now, "flock": true}), false, true},
		{"old marker, locked naming, lock held", "running", ".00001.json.tmp-17", marker(map[string]any{"host": "elsewhere.invalid", "pid": 4242, "started": now, "flock": true}), true, false},
		{"old marker, live process of this host", "running", ".00002.json.tmp-31", marker(map[string]any{"host": host, "pid": os.Getppid(), "started": now}), false, false},
		{"old marker, another host, no lock", "running", ".00000.json.tmp55", marker(map[string]any{"host": "elsewhere.invalid", "pid": 4242, "started": now}), false, false},
		{"old marker, empty: being written", "running", ".00001.json.tmp-77", "", false, false},
	}
	s := damagedStudy(t)
	for _, c := range cases {
		dir := filepath.Join(s.Dir, c.dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, c.file)
		if err := os.WriteFile(path, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		if c.held {
			holdMarkerLock(t, path)
		}
	}
	if status := s.Status(); status.Count(Running) != 0 || len(status.Damaged) != 0 {
		t.Errorf("before the run, the temporary files were taken for markers: %s, damaged %v", status.Line(), status.Damaged)
	}
	if err := s.run(context.Background(), &Local{Workers: 1}, false, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		_, err := os.Lstat(filepath.Join(s.Dir, c.dir, c.file))
		if gone := errors.Is(err, os.ErrNotExist); gone != c.removed {
			t.Errorf("%s (%s in %s/, lock held %v): removed %v, want %v (%v)", c.name, c.file, c.dir, c.held, gone, c.removed, err)
		}
	}
	if status := s.Status(); !status.Complete() || len(status.Damaged) != 0 {
		t.Errorf("after the run: %s, damaged %v", status.Line(), status.Damaged)
	}

	// A marker written now, through a temporary file of atomicfile's kind, is in place and its
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
