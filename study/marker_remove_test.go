package study

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"testing"
	"time"
)

// TestStaleMarkerReplacedKept: a stale running marker (its lock free) whose path a new
// worker's marker replaces after it was judged stale and before it is removed (a Slurm task of
// an earlier run starting the job) is not removed: the new marker stays, live, both where a
// run cleans the study directory and where the Slurm executor notes a lost task.
func TestStaleMarkerReplacedKept(t *testing.T) {
	fakeSlurm(t, map[string]string{"scontrol": "exit 1"})
	sites := []struct {
		name   string
		remove func(s *Study)
	}{
		{"clean", func(s *Study) { s.clean(nil) }},
		{"lost Slurm task", func(s *Study) {
			sub := Submission{Stage: "work", JobID: "7", Indices: []int{0, 1, 2}, Submitted: time.Now().Add(-time.Minute)}
			(&Slurm{}).noteLost(context.Background(), s, []Submission{sub}, nil)
		}},
	}
	for _, site := range sites {
		t.Run(site.name, func(t *testing.T) {
			s := damagedStudy(t)
			path := s.runningPath(1)
			stale, _ := json.Marshal(map[string]any{"host": "elsewhere.invalid", "pid": 4242, "started": time.Now().UTC(), "flock": true})
			if err := os.WriteFile(path, stale, 0o644); err != nil {
				t.Fatal(err)
			}
			a := new(attempt)
			defer func() {
				if a.marker != nil {
					a.marker.Close()
				}
			}()
			beforeMarkerRemove = func(i int) {
				if i == 1 && a.marker == nil {
					if err := a.mark(path, "elsewhere.invalid", time.Now().UTC()); err != nil {
						t.Error(err)
					}
				}
			}
			defer func() { beforeMarkerRemove = nil }()
			site.remove(s)
			if a.marker == nil {
				t.Fatal("the stale marker was not judged stale")
			}
			if live, err := s.runningMarker(1); !live || err != nil {
				t.Errorf("the marker of the worker that started: runningMarker %v, %v; want live", live, err)
			}
		})
	}
}

// TestUnmarkKeepsAnotherMarker: a worker that ends removes its own running marker, not one
// that replaced it at its path (another worker's, written after its own was judged stale).
func TestUnmarkKeepsAnotherMarker(t *testing.T) {
	requireStudyRuns(t)
	s := damagedStudy(t)
	path := s.runningPath(1)
	a, b := new(attempt), new(attempt)
	if err := a.mark(path, "elsewhere.invalid", time.Now().UTC()); err != nil {
		t.Fatal(err)
	}
	defer a.unmark(path)
	if err := b.mark(path, "elsewhere.invalid", time.Now().UTC()); err != nil {
		t.Fatal(err)
	}
	defer b.unmark(path)
	a.unmark(path)
	if live, err := s.runningMarker(1); !live || err != nil {
		t.Errorf("after the first worker ended: runningMarker %v, %v; want the second worker's marker, live", live, err)
	}
	b.unmark(path)
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after the second worker ended, its marker is left: %v", err)
	}
}
