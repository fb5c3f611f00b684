package study

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/atomicfile"
)

// markerCheck is called by the "marker-lock-test" job with its index while it runs.
var markerCheck func(i int)

func init() {
	Register("marker-lock-test", func(j *Job) error {
		markerCheck(j.Index)
		return nil
	})
}

// holdMarkerLock takes an exclusive lock (atomicfile.TryLock: flock(2), or LockFileEx on
// Windows) on the running marker at path through an open file of its own, as a worker does on
// whatever host it runs; these locks belong to the open file, so the study's own probe, which
// opens the file again, finds it busy although the same process holds it. Closing the file
// releases it.
func holdMarkerLock(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.TryLock(f, true); err != nil {
		f.Close()
		t.Fatalf("locking %s: %v", path, err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestMarkerLock: the worker of a marker that says it holds a lock on it runs while the lock
// is held and is gone once it is free, whatever host the marker names; a marker without that
// claim (written by an earlier version) is judged as before: by its process where it is of
// this host, never stale while that process lives, and taken as live in Status, but not
// stopping the job, where it is of another host.
func TestMarkerLock(t *testing.T) {
	requireStudyRuns(t)
	host, _ := os.Hostname()
	cases := []struct {
		name      string
		host      string
		pid       int
		flock     bool // the marker says its worker holds a lock on it
		held      bool // the test holds that lock
		live      bool // runningMarker
		elsewhere bool // liveElsewhere: RunJob refuses the job
	}{
		{"another host, lock held", "elsewhere.invalid", 4242, true, true, true, true},
		{"another host, lock free", "elsewhere.invalid", 4242, true, false, false, false},
		{"this host, lock held, process ended", host, deadPID(t), true, true, true, true},
		{"this host, lock free, process ended", host, deadPID(t), true, false, false, false},
		{"earlier version, this host, live process", host, os.Getppid(), false, false, true, true},
		{"earlier version, this host, ended process", host, deadPID(t), false, false, false, false},
		{"earlier version, another host", "elsewhere.invalid", 4242, false, false, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := damagedStudy(t)
			path := s.runningPath(1)
			fields := map[string]any{"host": c.host, "pid": c.pid, "started": time.Now().UTC()}
			if c.flock {
				fields["flock"] = true
			}
			marker, _ := json.Marshal(fields)
			if err := os.WriteFile(path, marker, 0o644); err != nil {
				t.Fatal(err)
			}
			if c.held {
				holdMarkerLock(t, path)
			}
			live, err := s.runningMarker(1)
			if err != nil || live != c.live {
				t.Errorf("runningMarker: %v, %v; want %v, nil", live, err, c.live)
			}
			m, err := s.readMarker(1)
			if err != nil || m == nil {
				t.Fatalf("readMarker: %v, %v", m, err)
			}
			if got := m.liveElsewhere(); got != c.elsewhere {
				t.Errorf("liveElsewhere: %v, want %v", got, c.elsewhere)
			}
			if want := map[bool]int{true: 1, false: 0}[c.live]; s.Status().Count(Running) != want {
				t.Errorf("status %s, want %d running", s.Status().Line(), want)
			}
			err = s.RunJob(context.Background(), 1)
			if c.elsewhere {
				if !errors.Is(err, errBusy) || !strings.Contains(err.Error(), c.host) || runsOf(1) != 0 {
					t.Errorf("RunJob: %v, job ran %d times; want it refused naming host %s", err, runsOf(1), c.host)
				}
				return
			}
			if err != nil || !s.Done(1) || runsOf(1) != 1 {
				t.Errorf("RunJob: %v, done %v, %d runs; want it run once and done", err, s.Done(1), runsOf(1))
			}
		})
	}
}

// TestMarkerLockReleased: a marker of another host whose worker holds its lock is live until
// the lock is released (the worker ended, however), and stale from then on.
func TestMarkerLockReleased(t *testing.T) {
	requireStudyRuns(t)
	s := damagedStudy(t)
	path := s.runningPath(1)
	marker, _ := json.Marshal(map[string]any{"host": "elsewhere.invalid", "pid": 4242, "started": time.Now().UTC(), "flock": true})
	if err := os.WriteFile(path, marker, 0o644); err != nil {
		t.Fatal(err)
	}
	f := holdMarkerLock(t, path)
	if live, err := s.runningMarker(1); !live || err != nil {
		t.Errorf("with the lock held: runningMarker %v, %v; want live", live, err)
	}
	f.Close()
	if live, err := s.runningMarker(1); live || err != nil {
		t.Errorf("with the lock released: runningMarker %v, %v; want stale", live, err)
	}
	var note strings.Builder
	if err := s.run(context.Background(), &Local{Workers: 1}, false, &note); err != nil {
		t.Fatalf("run: %v", err)
	}
	if !s.Status().Complete() || runsOf(1) != 1 {
		t.Errorf("after the run: %s, job 1 ran %d times; want complete, once", s.Status().Line(), runsOf(1))
	}
}

// TestWorkerHoldsMarkerLock: RunJob's marker says that its worker holds a lock on it, and the
// worker holds it while the job runs; a worker that ends without removing its marker (killed)
// leaves it stale, whatever host it names.
func TestWorkerHoldsMarkerLock(t *testing.T) {
	requireStudyRuns(t)
	s, err := Create(t.TempDir(), &Spec{Name: "marker", Axes: []Axis{{Name: "x", Values: Ints(1, 2, 3)}},
		Stages: []Stage{{Name: "work", Func: "marker-lock-test"}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	var during *runMarker
	var derr error
	markerCheck = func(i int) { during, derr = s.readMarker(i) }
	defer func() { markerCheck = nil }()
	if err := s.RunJob(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if derr != nil || during == nil || !during.Flock || during.lock != lockHeld {
		t.Errorf("the marker while the job ran: %+v, %v; want one that claims a lock, held", during, derr)
	}
	if _, err := os.Stat(s.runningPath(1)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the marker is left after the job: %v", err)
	}

	// a killed worker: its marker stays, its lock goes with its process
	a := new(attempt)
	if err := a.mark(s.runningPath(2), "elsewhere.invalid", time.Now().UTC()); err != nil {
		t.Fatal(err)
	}
	if live, err := s.runningMarker(2); !live || err != nil {
		t.Errorf("while the worker lives: runningMarker %v, %v; want live", live, err)
	}
	a.marker.Close()
	if live, err := s.runningMarker(2); live || err != nil {
		t.Errorf("after the worker was killed: runningMarker %v, %v; want stale", live, err)
	}
}
