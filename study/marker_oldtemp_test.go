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

// TestCleanRemovesOldMarkerTemps: gosbi versions before atomicfile.CreateTemp wrote running
// markers through temporary files named by os.CreateTemp (".NNNNN.json.tmp" and decimal digits,
// later ".NNNNN.json.tmp-" and decimal digits; the last of them locked the file after creating
// it and wrote "flock": true), which atomicfile.RemoveStale does not take for its own. A run
// removes those whose worker has certainly ended, judged as a marker is (by its lock where it
// claims one, else by its process where it is of this host), and keeps the others: a live or
// unknown worker, or a file that holds no marker yet. None of them is counted as a job's
// marker or as damaged.
func TestCleanRemovesOldMarkerTemps(t *testing.T) {
	host, _ := os.Hostname()
	now := time.Now().UTC()
	cases := []struct {
		name, file string
		content    map[string]any // nil: the file is empty
		held       bool           // the test holds the file's lock
		removed    bool
	}{
		{"first naming, ended process of this host", ".00001.json.tmp123456", map[string]any{"host": host, "pid": deadPID(t), "started": now}, false, true},
		{"second naming, ended process of this host", ".00002.json.tmp-987654321", map[string]any{"host": host, "pid": deadPID(t), "started": now}, false, true},
		{"locked naming, lock free", ".00000.json.tmp-4242", map[string]any{"host": "elsewhere.invalid", "pid": 4242, "started": now, "flock": true}, false, true},
		{"locked naming, lock held", ".00001.json.tmp-17", map[string]any{"host": "elsewhere.invalid", "pid": 4242, "started": now, "flock": true}, true, false},
		{"live process of this host", ".00002.json.tmp-31", map[string]any{"host": host, "pid": os.Getppid(), "started": now}, false, false},
		{"another host, no lock", ".00000.json.tmp55", map[string]any{"host": "elsewhere.invalid", "pid": 4242, "started": now}, false, false},
		{"empty: being written", ".00001.json.tmp-77", nil, false, false},
	}
	s := damagedStudy(t)
	dir := filepath.Join(s.Dir, "running")
	for _, c := range cases {
		var data []byte
		if c.content != nil {
			data, _ = json.Marshal(c.content)
		}
		path := filepath.Join(dir, c.file)
		if err := os.WriteFile(path, data, 0o644); err != nil {
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
		_, err := os.Lstat(filepath.Join(dir, c.file))
		if gone := errors.Is(err, os.ErrNotExist); gone != c.removed {
			t.Errorf("%s (%s): removed %v, want %v (%v)", c.name, c.file, gone, c.removed, err)
		}
	}
	if status := s.Status(); !status.Complete() || len(status.Damaged) != 0 {
		t.Errorf("after the run: %s, damaged %v", status.Line(), status.Damaged)
	}
}
