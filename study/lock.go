package study

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gosbi/gosbi/internal/atomicfile"
)

// ErrLocked is wrapped by the error of Run when another process runs the same study directory.
var ErrLocked = errors.New("the study is being run by another process")

// lockFile is the study directory's lock: an flock(2) lock on DIR/lock (no study runs on
// Windows: see runsSupported), held by the process that runs the study's jobs, and the holder's identity written
// in it for the others to read. The kernel releases the lock when its holder ends, however it
// ends; a holder that ends without releasing it leaves its identity in the file, which the
// next holder reports. On a system with no file locks (atomicfile.Locks is ""), nothing is
// locked: a run says so, and another run is found only by the identity written in the file,
// of a process of this host that still exists (see holder.live).
const lockFile = "lock"

// lockPoll is how often a run that waits for the lock tries again.
var lockPoll = 500 * time.Millisecond

// A run that finds the lock held by shared locks only, those of status probes (runner) that
// hold one for an instant and never run jobs, tries again every probeRetry, probeTries times
// (a second in all), before it reports the lock as held by something other than a run.
var (
	probeRetry = 10 * time.Millisecond
	probeTries = 100
)

// holder is the identity a lock holder writes into the lock file.
type holder struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Started time.Time `json:"started"`
	Command string    `json:"command,omitempty"`
	// Retries is how many more times the run tries a job that fails (Local.Retries,
	// Slurm.Retries); absent when its executor does not say.
	Retries *int `json:"retries,omitempty"`
}

func (h holder) String() string {
	s := fmt.Sprintf("pid %d on host %s, running since %s", h.PID, h.Host, h.Started.Local().Format(time.DateTime))
	if h.Command != "" {
		s += " (" + h.Command + ")"
	}
	return s
}

// dirLock is a held lock of a study directory.
type dirLock struct {
	f *os.File
}

// lock takes the lock of the study directory. A lock held by another process is an error
// wrapping ErrLocked that names the holder, or, with wait, lock tries again until the lock is
// free or ctx is done, saying once on note whom it waits for. A lock held by shared locks only
// (status probes: see runner) is no run's: lock tries again for up to probeTries*probeRetry,
// then, without wait, returns an error that does not wrap ErrLocked. A lock whose holder ended
// without releasing it (killed) is taken over with a line on note. retries, written in the
// lock for Status, is how many more times the run tries a job that fails; below 0 when its
// executor does not say.
func (s *Study) lock(ctx context.Context, wait bool, note io.Writer, retries int) (*dirLock, error) {
	path := filepath.Join(s.Dir, lockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("study: opening the lock of %s: %w", s.Dir, err)
	}
	waiting := false
	probed := 0 // how many times the lock was found held by shared locks only
	for {
		err := atomicfile.TryLock(f, true)
		if err == nil {
			break
		}
		if errors.Is(err, atomicfile.ErrLockHeld) && sharedOnly(f) {
			if probed >= probeTries && !wait {
				f.Close()
				return nil, fmt.Errorf("study %s: %s stayed held by shared locks only for %s: no gosbi run holds it (a run's lock is exclusive), and gosbi study status holds a shared one for an instant only; try again, or find the process that holds it (lsof %s)",
					s.Spec.Name, path, time.Duration(probeTries)*probeRetry, path)
			}
			if err := s.awaitProbe(ctx, &probed, wait, note, path); err != nil {
				f.Close()
				return nil, err
			}
			continue
		}
		if atomicfile.Locks == "" {
			if h, ok := readHolder(f); !ok || !h.live() {
				if note != nil {
					fmt.Fprintf(note, "study %s: %s\n", s.Spec.Name, noLocks)
				}
				break
			}
		} else if !errors.Is(err, atomicfile.ErrLockHeld) {
			f.Close()
			return nil, fmt.Errorf("study: cannot lock %s (%w); the file system of the study directory must support %s so that two runs of one study cannot run its jobs twice", path, err, atomicfile.Locks)
		}
		who := "a process whose identity is not written yet"
		if h, ok := readHolder(f); ok {
			who = h.String()
		}
		if !wait {
			f.Close()
			return nil, fmt.Errorf("study %s: %w: %s holds %s; wait for it to end (gosbi study run --wait) or stop it",
				s.Spec.Name, ErrLocked, who, path)
		}
		if !waiting && note != nil {
			fmt.Fprintf(note, "study %s: waiting for the run of %s to end (it holds %s)\n", s.Spec.Name, who, path)
			waiting = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("study %s: stopped while waiting for the lock %s: %w", s.Spec.Name, path, ctx.Err())
		case <-time.After(lockPoll):
		}
	}
	if h, ok := readHolder(f); ok && note != nil {
		fmt.Fprintf(note, "study %s: the previous run (%s) ended without releasing its lock (killed?); taking it over\n", s.Spec.Name, h)
	}
	host, _ := os.Hostname()
	h := holder{PID: os.Getpid(), Host: host, Started: time.Now().UTC(), Command: strings.Join(os.Args, " ")}
	if retries >= 0 {
		h.Retries = &retries
	}
	if len(h.Command) > 200 {
		h.Command = h.Command[:200] + "…"
	}
	data, _ := json.Marshal(h)
	if err := writeHolder(f, append(data, '\n')); err != nil {
		atomicfile.Unlock(f)
		f.Close()
		return nil, fmt.Errorf("study: writing the lock %s: %w", path, err)
	}
	return &dirLock{f: f}, nil
}

// release empties the lock file (a clean end) and releases the lock.
func (l *dirLock) release() {
	if l == nil || l.f == nil {
		return
	}
	writeHolder(l.f, nil)
	atomicfile.Unlock(l.f)
	l.f.Close()
	l.f = nil
}

// readHolder reads the identity written in a lock file; false when it holds none.
func readHolder(f *os.File) (holder, bool) {
	data := make([]byte, 4096)
	n, _ := f.ReadAt(data, 0)
	var h holder
	if n == 0 || json.Unmarshal(data[:n], &h) != nil || h.PID == 0 {
		return holder{}, false
	}
	return h, true
}

// writeHolder replaces the content of a lock file.
func writeHolder(f *os.File, data []byte) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		return err
	}
	return f.Sync()
}

// sharedOnly reports whether the lock that f could not take exclusively is held by shared locks
// only (status probes), not by a run: f can take a shared one. It leaves f unlocked.
func sharedOnly(f *os.File) bool {
	if atomicfile.TryLock(f, false) != nil {
		return false
	}
	atomicfile.Unlock(f)
	return true
}

// awaitProbe waits before a run tries again for a lock held by status probes only (sharedOnly):
// probeRetry for the first probeTries times, lockPoll after (with wait only), saying once on
// note, when the probes outlast probeTries, that the run waits. It counts the wait in probed.
func (s *Study) awaitProbe(ctx context.Context, probed *int, wait bool, note io.Writer, path string) error {
	if s.probeHeld != nil {
		s.probeHeld()
	}
	*probed++
	pause := probeRetry
	if *probed > probeTries {
		pause = lockPoll
		if *probed == probeTries+1 && note != nil {
			fmt.Fprintf(note, "study %s: waiting for %s, held by shared locks only (no run holds it)\n", s.Spec.Name, path)
		}
	}
	select {
	case <-ctx.Done():
		return fmt.Errorf("study %s: stopped while waiting for the lock %s: %w", s.Spec.Name, path, ctx.Err())
	case <-time.After(pause):
		return nil
	}
}

// runner names the process that runs the study now, or returns "" when none does, and how
// many more times it tries a job that fails (-1 when it does not say or none runs). It probes
// the lock with a shared lock, held for an instant, which a run meeting it waits out (lock).
func (s *Study) runner() (string, int) {
	f, err := os.OpenFile(filepath.Join(s.Dir, lockFile), os.O_RDONLY, 0)
	if err != nil {
		return "", -1
	}
	defer f.Close()
	if atomicfile.Locks == "" {
		h, ok := readHolder(f)
		if !ok || !h.live() {
			return "", -1
		}
		return h.String() + " (" + noLocks + ")", h.retries()
	}
	if err := atomicfile.TryLock(f, false); err == nil {
		atomicfile.Unlock(f)
		return "", -1
	}
	h, ok := readHolder(f)
	if !ok {
		return "a process whose identity is not written yet", -1
	}
	return h.String(), h.retries()
}

// retries is how many more times the holder tries a job that fails, -1 when it does not say.
func (h holder) retries() int {
	if h.Retries == nil || *h.Retries < 0 {
		return -1
	}
	return *h.Retries
}

// noLocks says what a study run cannot tell where the system has no file locks.
const noLocks = "this system has no file locks (flock(2) or LockFileEx): nothing stops a run on another host from running the study's jobs at the same time, and a run (its lock's holder, a job's running marker) is judged by whether its process exists on this host only; one of another host is taken to have ended"

// live reports, where the system has no file locks, whether the holder may still run: a
// process of its id exists on this host (see runMarker.alive). A holder of another host cannot
// be judged, and is taken to have ended, as noLocks says.
func (h holder) live() bool {
	m := runMarker{Host: h.Host, PID: h.PID, Started: h.Started}
	return m.local() && m.alive()
}
