package study

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gosbi/gosbi/internal/atomicfile"
	"github.com/gosbi/gosbi/internal/readlimit"
)

// A worker holds an exclusive flock(2) lock on its running marker for as long as it runs the
// job, so that whether it still runs can be told from any host that shares the study
// directory: a probe that cannot take the lock finds the worker running, one that takes it
// finds the worker gone, however it ended and wherever it ran, as the kernel (or the NFS
// server) releases the lock of a process that ends.
//
// flock rather than fcntl(2) record locks: an fcntl lock belongs to the process and is
// released when the process closes any descriptor of the file, so the worker's own reads of
// its marker would drop it; a flock lock belongs to the open file description the worker keeps.
// On NFS, Linux clients (2.6.12 on) carry flock locks to the server as whole-file record locks,
// which every client sees, unless the file system is mounted with local_lock=flock or
// local_lock=all; Lustre shares them across nodes when mounted with -o flock, not -o
// localflock. Where locks are local to each host, a marker of another host is found stale while
// its worker runs: its job may then run twice, and the second record to be renamed into place
// is dropped (the first stands).
//
// On Windows no study runs (runsSupported): the marker is renamed into place while its worker
// holds it open, and Windows refuses to rename a file that a handle opened without
// FILE_SHARE_DELETE holds, as Go opens files; studies run under WSL there. On a system with no
// file locks (atomicfile.Locks is ""), a marker claims no lock, and whether its worker runs is
// judged by its process on this host only, as for a marker of an earlier gosbi: a marker of
// another host cannot be told live or stale; a study run says so (noLocks).

// lockState is what a probe of a marker's lock found.
type lockState int

const (
	lockUnknown lockState = iota // not probed (the marker claims no lock), or the probe failed
	lockHeld                     // another open file holds it: the worker runs
	lockFree                     // nobody holds it: the worker has ended
)

// markerTries bounds how often readMarker reads a marker that is replaced while it probes it.
const markerTries = 3

// runMarker is what a running marker holds: the host and process id of the worker, and whether
// it holds a lock on the marker (Flock; a marker of a file system without locks, or of a gosbi
// without marker locks, claims none).
type runMarker struct {
	Host    string    `json:"host"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"` // when the worker wrote it
	Flock   bool      `json:"flock,omitempty"`

	lock lockState // what readMarker's probe of the lock found
}

// readMarker reads the running marker of job i and, where it claims a lock, probes the lock:
// nil, nil when the job has no marker, and a *damagedFile when it cannot be read or names no
// process.
func (s *Study) readMarker(i int) (*runMarker, error) {
	path := s.runningPath(i)
	var m *runMarker
	for range markerTries {
		var replaced bool
		var err error
		m, replaced, err = s.probeMarker(i, path)
		if m == nil || err != nil || !replaced {
			return m, err
		}
	}
	m.lock = lockUnknown // replaced at every try: judged by its process, as an unlocked marker
	return m, nil
}

// probeMarker reads the marker of job i at path and probes its lock; replaced reports that the
// lock was free but path no longer names the file probed (the worker removed its marker, and
// another may have written one since), or that namesFile cannot tell: the caller reads it
// again.
func (s *Study) probeMarker(i int, path string) (m *runMarker, replaced bool, err error) {
	f, m, err := s.openMarker(i, path)
	if f == nil {
		return nil, false, err
	}
	defer f.Close() // releases the probe's lock
	if m.lock != lockFree {
		return m, false, nil
	}
	return m, !namesFile(path, f), nil
}

// namesFile reports whether path still names the open file f, as an error in telling is no.
// It looks at path itself (Lstat): the study makes a marker by renaming a regular file into
// place, never a symbolic link, so a link at path is not the marker probed, and neither its
// free lock nor its removal is trusted.
func namesFile(path string, f *os.File) bool {
	probed, err1 := f.Stat()
	now, err2 := os.Lstat(path)
	return err1 == nil && err2 == nil && os.SameFile(probed, now)
}

// openMarker opens the marker of job i at path, reads it and, where it claims a lock, probes
// the lock (lockShared), which it leaves taken where it is free: the caller closes f, which
// releases it. f is nil when the job has no marker or it is damaged (err).
func (s *Study) openMarker(i int, path string) (f *os.File, m *runMarker, err error) {
	f, err = os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, &damagedFile{job: s.Jobs[i], what: markerKind, path: path, reason: "cannot be read: " + err.Error()}
	}
	m, err = s.parseMarker(i, f, path)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if m.Flock {
		m.lock = lockShared(f)
	}
	return f, m, nil
}

// parseMarker reads and parses the marker of job i from f.
func (s *Study) parseMarker(i int, f *os.File, path string) (*runMarker, error) {
	m, reason := decodeMarker(f, path)
	if reason != "" {
		return nil, &damagedFile{job: s.Jobs[i], what: markerKind, path: path, reason: reason}
	}
	return m, nil
}

// decodeMarker reads a running marker from f, the file at path, and returns it, or, where it
// cannot be read or names no process, why.
func decodeMarker(f *os.File, path string) (*runMarker, string) {
	data, err := readlimit.Reader(f, path, "a running marker", maxNoteSize)
	if err != nil {
		return nil, "cannot be read: " + err.Error()
	}
	var m runMarker
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, "does not parse: " + err.Error()
	}
	if m.PID <= 0 {
		return nil, fmt.Sprintf("pid %d, expected the id of the worker's process", m.PID)
	}
	return &m, ""
}

// lockShared tries a shared lock on f, a marker, without waiting, and keeps it where it gets
// it (lockFree) until f is closed. A shared lock conflicts with the worker's exclusive one
// only, so that probes never stop each other, and needs f open for reading only, also on NFS.
func lockShared(f *os.File) lockState {
	err := atomicfile.TryLock(f, false)
	if errors.Is(err, atomicfile.ErrLockHeld) {
		return lockHeld
	}
	if err != nil { // no locks on this file system (ENOLCK, EOPNOTSUPP): nothing can be told
		return lockUnknown
	}
	return lockFree
}

// removeIfStale removes the running marker of job i when stale says so of it. A marker that
// cannot be read, or names no process, is kept and returned as a *damagedFile. It judges the
// marker by one open file and removes the path only where the path still names that file,
// holding the shared lock of the probe (where the marker claims a lock) until then: a marker
// renamed into place after the probe (a worker that starts the job, such as a Slurm task of an
// earlier run) is kept. No system call removes a path only if it names a given file, so a
// marker renamed into place between that last check and the removal would still be removed.
func (s *Study) removeIfStale(i int, stale func(*runMarker) bool) error {
	path := s.runningPath(i)
	f, m, err := s.openMarker(i, path)
	if f == nil {
		return err
	}
	defer f.Close() // releases the probe's lock, after the removal
	if !stale(m) {
		return nil
	}
	if beforeMarkerRemove != nil {
		beforeMarkerRemove(i)
	}
	if namesFile(path, f) {
		os.Remove(path) // best effort, as clean's other removals: a marker left is judged again
	}
	return nil
}

// beforeMarkerRemove, when set (by tests), is called by removeIfStale with the job's index
// after it has judged the marker stale and before it checks that the path still names it.
var beforeMarkerRemove func(i int)

// live reports whether the marker's worker runs, and whether that can be told at all. The
// lock decides for a marker whose worker holds one, wherever it runs. A marker that claims no
// lock, or whose lock could not be probed, is judged by its process where it is of this host,
// and cannot be judged where it is of another: its lock says nothing, as nobody ever held it,
// and must never make it stale while its worker runs.
func (m *runMarker) live() (live, known bool) {
	switch m.lock {
	case lockHeld:
		return true, true
	case lockFree:
		return false, true
	}
	if m.local() {
		return m.alive(), true
	}
	return false, false
}

// writeMarker writes the running marker at path for a worker of host started at started, and
// returns the open file of the marker, whose exclusive lock the worker holds until it closes
// it. The marker is written to a temporary file, locked from its creation (atomicfile's, which
// the study's clean removes once its worker has ended) and renamed into place, so that no
// probe ever finds a marker that claims a lock nobody holds yet. Where the file system takes
// no lock, the marker claims none and is judged by its process (live). It is readable by all,
// as the study's other files are, so that another user sharing the study directory can probe it.
func writeMarker(path, host string, started time.Time) (*os.File, error) {
	f, release, err := atomicfile.CreateTemp(filepath.Dir(path), filepath.Base(path), 0o644)
	if err != nil {
		return nil, fmt.Errorf("study: writing %s: %w", path, err)
	}
	defer release() // f, kept open, keeps the lock
	tmp := f.Name()
	m := runMarker{Host: host, PID: os.Getpid(), Started: started}
	// CreateTemp has locked f where the file system takes locks: taking the lock again through
	// f succeeds there, and fails where there are none.
	m.Flock = atomicfile.TryLock(f, true) == nil
	data, _ := json.MarshalIndent(m, "", "  ")
	if err := writeSynced(f, append(data, '\n')); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("study: writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("study: writing %s: %w", path, err)
	}
	if err := atomicfile.SyncDir(filepath.Dir(path)); err != nil {
		os.Remove(path)
		f.Close()
		return nil, fmt.Errorf("study: %w", err)
	}
	return f, nil
}

// writeSynced writes data to the new file f and syncs it.
func writeSynced(f *os.File, data []byte) error {
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Sync()
}

// busy says which worker runs the job of the marker at path, for a marker of a live worker.
func (m *runMarker) busy(path string) string {
	who := fmt.Sprintf("process %d on host %s", m.PID, m.Host)
	if m.local() {
		who = fmt.Sprintf("process %d on this host (%s)", m.PID, m.Host)
	}
	if m.lock == lockHeld {
		return fmt.Sprintf("%s holds the lock of its running marker %s", who, path)
	}
	return fmt.Sprintf("%s wrote its running marker %s and is alive (if process %d is no gosbi worker, its id was reused: remove the marker)", who, path, m.PID)
}

// oldTempDigits is the most decimal digits os.CreateTemp puts in a name (those of a uint32).
const oldTempDigits = 10

// isOldMarkerTemp reports whether name is that of the temporary file of a running marker as
// gosbi versions before atomicfile.CreateTemp wrote it with os.CreateTemp: ".NNNNN.json.tmp" or
// ".NNNNN.json.tmp-", then up to oldTempDigits decimal digits. Those of atomicfile end in
// 12 hexadecimal digits, which atomicfile.RemoveStale judges.
func isOldMarkerTemp(name string) bool {
	job, rest, ok := strings.Cut(strings.TrimPrefix(name, "."), ".json.tmp")
	if !ok || !strings.HasPrefix(name, ".") {
		return false
	}
	random := strings.TrimPrefix(rest, "-")
	return decimal(job) && decimal(random) && len(random) <= oldTempDigits
}

// decimal reports whether s is a non-empty string of decimal digits.
func decimal(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// removeOldMarkerTemps removes from dir (DIR/running) the temporary files of running markers
// that workers of earlier gosbi versions (isOldMarkerTemp) left when they were killed before the
// rename. Such a file holds its marker once written, and is judged as a marker is (live): by
// its lock where it claims one (written after the lock was taken), else by its process where
// it is of this host. Where its worker may still run, or cannot be told (another host without
// a lock, or a file that holds no marker yet, as its worker may be writing it), it is kept.
// Removal is best effort, as that of atomicfile.RemoveStale.
func removeOldMarkerTemps(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.Type().IsRegular() && isOldMarkerTemp(e.Name()) {
			removeOldMarkerTemp(filepath.Join(dir, e.Name()))
		}
	}
}

// removeOldMarkerTemp removes the temporary file of a marker at path when its worker has
// certainly ended, holding the shared lock of the probe (where it claims a lock) and only
// where path still names the file judged.
func removeOldMarkerTemp(path string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close() // releases the probe's lock, after the removal
	m, reason := decodeMarker(f, path)
	if reason != "" {
		return
	}
	if m.Flock {
		m.lock = lockShared(f)
	}
	if m.stale() && namesFile(path, f) {
		os.Remove(path)
	}
}
