//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

// The status probe's shared lock and a run's exclusive one are flock(2) locks here; studies do
// not run elsewhere (Windows).

package study

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/atomicfile"
)

// TestLockWaitsOutStatusProbe: a run that starts while a status probe (runner) holds its
// shared lock on DIR/lock waits for the probe to end and runs, rather than refusing with
// ErrLocked ("a process whose identity is not written yet"); a shared lock that outlasts the
// bound is reported as no run's (not ErrLocked), or, with wait, waited for; a lock that a run
// holds (exclusive) is still ErrLocked at once.
func TestLockWaitsOutStatusProbe(t *testing.T) {
	defer func(r time.Duration, n int, p time.Duration) {
		probeRetry, probeTries, lockPoll = r, n, p
	}(probeRetry, probeTries, lockPoll)
	probeRetry, probeTries, lockPoll = time.Millisecond, 3, time.Millisecond
	cases := []struct {
		name      string
		exclusive bool // the test holds the lock as a run does, not as a probe
		wait      bool
		endAt     int    // the probe ends at this call of the hook; 0: never
		calls     int    // the hook's calls expected
		err       string // what the error says; "": the run takes the lock
		locked    bool   // the error wraps ErrLocked
		note      string // what the note says
	}{
		{name: "probe ends", endAt: 1, calls: 1},
		{name: "probe ends late", endAt: 3, calls: 3},
		{name: "probe outlasts the bound", calls: 3, err: "held by shared locks only"},
		{name: "probe outlasts the bound, wait", wait: true, endAt: 6, calls: 6, note: "held by shared locks only (no run holds it)"},
		{name: "run holds it", exclusive: true, err: "is being run", locked: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := damagedStudy(t)
			probe, err := os.OpenFile(filepath.Join(s.Dir, lockFile), os.O_RDWR|os.O_CREATE, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			defer probe.Close()
			if err := atomicfile.TryLock(probe, c.exclusive); err != nil {
				t.Fatal(err)
			}
			calls := 0
			s.probeHeld = func() {
				calls++
				if calls == c.endAt {
					atomicfile.Unlock(probe)
				}
			}
			var note strings.Builder
			// A bound on the wait case should the lock never be taken: no case needs it.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			l, err := s.lock(ctx, c.wait, &note, -1)
			if c.err == "" {
				if err != nil {
					t.Fatalf("lock = %v, want the lock once the probe ended", err)
				}
				l.release()
			} else if err == nil || !strings.Contains(err.Error(), c.err) || errors.Is(err, ErrLocked) != c.locked {
				t.Errorf("lock = %v, want an error saying %q (wrapping ErrLocked: %v)", err, c.err, c.locked)
			}
			if calls != c.calls {
				t.Errorf("the lock was found held by a probe only %d times, want %d", calls, c.calls)
			}
			if !strings.Contains(note.String(), c.note) {
				t.Errorf("note %q, want it to say %q", note.String(), c.note)
			}
		})
	}
}
