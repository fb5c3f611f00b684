package study

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gosbi/gosbi/internal/atomicfile"
	"github.com/gosbi/gosbi/internal/readlimit"
	"github.com/gosbi/gosbi/internal/text"
)

// envGosbi names the gosbi binary that runs script stages (default: this executable).
const envGosbi = "GOSBI_STUDY_GOSBI"

// RunJob runs job i of the study unless it already has a record: it runs the stage's function
// or script in a fresh directory, writes record.json there and renames the directory into
// place, so that a record is either complete or absent. A failure leaves failed/NNNNN.json and
// the job's log; the error is returned. A job whose failure note or running marker is damaged
// (see DamagedFile) does not run: RunJob returns an error naming the file. Nor does a job
// whose running marker is of a live worker other than this process: one that holds the lock
// on its marker, on whatever host, or, for a marker that claims no lock, a live process of
// this host; the error names that worker. A marker of another host that claims no lock does
// not stop the job, as whether its worker lives cannot be told. On Windows, RunJob returns at
// once an error wrapping errors.ErrUnsupported, as Run does.
func (s *Study) RunJob(ctx context.Context, i int) error {
	if err := runsSupported(); err != nil {
		return err
	}
	if i < 0 || i >= len(s.Jobs) {
		return fmt.Errorf("study: job index %d out of range: the study has %s (0…%d)", i, text.Count(len(s.Jobs), "job"), len(s.Jobs)-1)
	}
	if s.Done(i) {
		return nil
	}
	info := s.Jobs[i]
	if err := ctx.Err(); err != nil { // the run was stopped before this job started: it stays pending
		return fmt.Errorf("study: %s not started: %w", info, err)
	}
	m, err := s.readMarker(i)
	if err != nil { // a worker may run it
		return fmt.Errorf("study: %s not started: %w", info, err)
	}
	if m != nil && m.liveElsewhere() {
		return fmt.Errorf("study: %s not started: %w: %s; wait until it ends, or stop it, and run the study again",
			info, errBusy, m.busy(s.runningPath(i)))
	}
	f, err := s.failureNote(i)
	if err != nil {
		return fmt.Errorf("study: %s not started: %w", info, err)
	}
	a := attemptOf(ctx)
	st, _ := s.stage(info.Stage)
	host, _ := os.Hostname()
	attempt := 1
	if f != nil {
		attempt = f.Attempt + 1
	}
	started := time.Now().UTC()
	if err := a.do(func() error { return a.mark(s.runningPath(i), host, started) }); err != nil {
		return fmt.Errorf("study: %s not started: %w", info, err)
	}
	defer a.do(func() error { a.unmark(s.runningPath(i)); return nil })
	logf, err := openCappedLog(s.LogPath(i), maxLogHead, maxLogTail)
	if err != nil {
		return fmt.Errorf("study: %w", err)
	}
	defer logf.Close()
	fmt.Fprintf(logf, "== %s, attempt %d on %s at %s\n", info, attempt, host, started.Format(time.RFC3339))

	parent := filepath.Join(s.Dir, "jobs", info.Stage)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("study: %w", err)
	}
	var tmp string
	err = a.do(func() error {
		var err error
		tmp, err = os.MkdirTemp(parent, fmt.Sprintf(".tmp-%05d-", i))
		a.tmp = tmp
		return err
	})
	if err != nil {
		return fmt.Errorf("study: %s: %w", info, err)
	}
	defer os.RemoveAll(tmp)
	j := s.newJob(i, tmp, logf)
	if st.Func != "" {
		err = runFunc(st.Func, j)
	} else {
		err = s.runScript(ctx, st, j, logf)
	}
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("interrupted: the run was stopped while the job ran (%w): %w", ctx.Err(), err)
	}
	var result error
	if serr := a.do(func() error {
		result = s.end(j, err, attempt, host, started, logf)
		a.ended, a.err = true, result
		a.unmark(s.runningPath(i))
		return nil
	}); errors.Is(serr, errStopped) {
		return fmt.Errorf("study: %s: %w", info, serr)
	}
	return result
}

// end ends an attempt of a job whose work returned err: it commits the job's record, or, when
// err or the commit fails, writes the failure note. It returns RunJob's error.
func (s *Study) end(j *Job, err error, attempt int, host string, started time.Time, logf io.Writer) error {
	info := s.Jobs[j.Index]
	if err == nil {
		err = s.commit(j, attempt, host, started)
	}
	if err != nil {
		fmt.Fprintf(logf, "FAILED: %v\n", err)
		f := Failure{Index: j.Index, Error: noteError(err.Error()), Attempt: attempt, Host: host, Time: time.Now().UTC()}
		if werr := writeJSONAtomic(s.failedPath(j.Index), f); werr != nil {
			return errors.Join(err, werr)
		}
		return fmt.Errorf("study: %s: %w", info, err)
	}
	fmt.Fprintf(logf, "done in %v\n", time.Since(started).Round(time.Millisecond))
	os.Remove(s.failedPath(j.Index))
	return nil
}

// errBusy is wrapped by the error of RunJob for a job that another live worker runs: one that
// holds the lock of its running marker, on whatever host, or whose marker claims no lock and
// names a live process of this host.
var errBusy = errors.New("another worker runs it")

// errStopped is the error of an attempt that a signal stopped (interrupted) before it ended.
var errStopped = errors.New("interrupted by a signal: the worker noted the job as failed and wrote nothing more")

// attempt is what a worker process knows of the attempt of its job, so that the end of the
// attempt (RunJob writing the record or the failure note) and the note of a signal that stops
// the worker (interrupted) exclude each other: each happens under mu, the first decides how the
// attempt ended, and the other writes nothing. The worker command gives RunJob and interrupted
// the same attempt through their context (withAttempt); other callers of RunJob get one of
// their own, which no signal path shares.
type attempt struct {
	mu      sync.Mutex
	marker  *os.File // the job's running marker, whose lock the attempt holds, while it is the attempt's
	tmp     string   // the attempt's temporary directory, once made
	ended   bool     // RunJob ended the attempt: its record or its failure note is written
	err     error    // RunJob's error, once ended
	stopped bool     // interrupted stopped the attempt first
}

type attemptKey struct{}

// withAttempt returns ctx carrying a new attempt, for a RunJob and an interrupted of one job.
func withAttempt(ctx context.Context) context.Context {
	return context.WithValue(ctx, attemptKey{}, new(attempt))
}

// attemptOf returns the attempt that ctx carries, or a new one.
func attemptOf(ctx context.Context) *attempt {
	if a, ok := ctx.Value(attemptKey{}).(*attempt); ok {
		return a
	}
	return new(attempt)
}

// do calls f under the attempt's lock, unless interrupted stopped the attempt: it returns
// errStopped then.
func (a *attempt) do(f func() error) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stopped {
		return errStopped
	}
	return f()
}

// mark writes the job's running marker at path and holds its lock (writeMarker); the caller
// holds a.mu.
func (a *attempt) mark(path, host string, started time.Time) error {
	f, err := writeMarker(path, host, started)
	if err != nil {
		return err
	}
	a.marker = f
	return nil
}

// unmark removes the attempt's running marker at path, once, and then releases its lock, so
// that a probe never finds the marker of a running job unlocked; the caller holds a.mu. Where
// path no longer names the attempt's marker (another worker's replaced it, after a probe found
// this one stale), it is left to that worker.
func (a *attempt) unmark(path string) {
	if a.marker == nil {
		return
	}
	mine, err1 := a.marker.Stat()
	now, err2 := os.Lstat(path)
	if err1 == nil && err2 == nil && os.SameFile(mine, now) {
		os.Remove(path)
	}
	a.marker.Close()
	a.marker = nil
}

// runFunc calls a registered function, turning a panic into an error.
func runFunc(name string, j *Job) (err error) {
	f, ok := registered(name)
	if !ok {
		return fmt.Errorf("no function %q is registered in this binary (study.Register); the worker must be a program that registers the study's functions", name)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	return f(j)
}

// runScript runs a script stage with `gosbi script`, its output going to the job's log, and
// reads back the metrics the script set.
func (s *Study) runScript(ctx context.Context, st Stage, j *Job, log io.Writer) error {
	bin := os.Getenv(envGosbi)
	if bin == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("finding the gosbi binary: %w", err)
		}
		bin = exe
	}
	dir, err := filepath.Abs(s.Dir)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, bin, "script", filepath.Join(dir, st.Script))
	cmd.Dir = j.Dir
	cmd.Env = append(os.Environ(), envDir+"="+dir, fmt.Sprintf("%s=%d", envIndex, j.Index), envOut+"="+j.Dir)
	if n, ok := ctx.Value(procsKey{}).(int); ok && os.Getenv("GOMAXPROCS") == "" {
		cmd.Env = append(cmd.Env, fmt.Sprintf("GOMAXPROCS=%d", n))
	}
	if b, ok := ctx.Value(memKey{}).(uint64); ok && os.Getenv("GOMEMLIMIT") == "" {
		cmd.Env = append(cmd.Env, fmt.Sprintf("GOMEMLIMIT=%dB", b))
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := runGroup(cmd); err != nil {
		return fmt.Errorf("script %s: %w (its output is in %s)", st.Script, err, s.LogPath(j.Index))
	}
	p, err := readPartial(j.Path(partialFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the metrics of script %s: %w", st.Script, err)
	}
	if p.Metrics != nil {
		j.metrics = p.Metrics
	}
	if p.Series != nil {
		j.series = p.Series
	}
	return nil
}

// commit writes the record into the job's directory and renames it into place.
func (s *Study) commit(j *Job, attempt int, host string, started time.Time) error {
	if k, ok := finite(j.metrics); !ok {
		return fmt.Errorf("metric %s = %v: JSON cannot hold it; record a finite value (or leave it out)", k, j.metrics[k])
	}
	for k, v := range j.series {
		for n, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("series %s holds a non-finite value (%v at %d); JSON cannot hold it: record finite values", k, x, n)
			}
		}
	}
	os.Remove(j.Path(partialFile))
	fs, err := files(j.Dir)
	if err != nil {
		return err
	}
	info := s.Jobs[j.Index]
	r := Record{Index: j.Index, Stage: info.Stage, Key: info.Key, Params: info.Params, Seed: j.Seed,
		Metrics: j.metrics, Series: j.series, Files: fs, Attempt: attempt, Host: host,
		Started: started, Finished: time.Now().UTC()}
	data, err := encodeRecord(r)
	if err != nil {
		return err
	}
	if len(data) > maxRecordSize {
		return fmt.Errorf("its record takes %d bytes, more than the %d bytes (%d MiB) a job record may hold: "+
			"write long series to a file in the job's directory (Job.Path) rather than with SetSeries", len(data), maxRecordSize, maxRecordSize>>20)
	}
	if err := writeFileAtomic(j.Path("record.json"), data); err != nil {
		return err
	}
	if err := atomicfile.SyncDir(j.Dir); err != nil {
		return fmt.Errorf("study: %w", err)
	}
	final := s.recordDir(j.Index)
	if err := s.removeInvalidRecord(j.Index); err != nil {
		return err
	}
	if beforeRename != nil {
		beforeRename(j.Index)
	}
	if err := os.Rename(j.Dir, final); err != nil {
		if s.Done(j.Index) { // another worker finished the same job first
			return nil
		}
		return fmt.Errorf("study: %w", err)
	}
	if err := atomicfile.SyncDir(filepath.Dir(final)); err != nil {
		return fmt.Errorf("study: %w", err)
	}
	return nil
}

// removeInvalidRecord moves aside and removes the record directory of job i when its record is
// invalid (the job ran again to replace it).
func (s *Study) removeInvalidRecord(i int) error {
	if err := s.recordError(i); err == nil || errors.Is(err, errNoRecord) {
		return nil
	}
	dir := s.recordDir(i)
	aside := filepath.Join(filepath.Dir(dir), fmt.Sprintf(".tmp-%05d-invalid-%s", i, randomSuffix()))
	if err := os.Rename(dir, aside); err != nil {
		return fmt.Errorf("study: moving the invalid record of %s aside: %w", s.Jobs[i], err)
	}
	return os.RemoveAll(aside)
}

// beforeRename, when set (by tests), is called by commit just before it renames a record into
// place.
var beforeRename func(i int)

// interrupted records that the worker of job i was stopped by a signal and removes what its
// attempt left; ctx carries the attempt, as it did to RunJob. An attempt that RunJob ended first
// keeps its outcome: interrupted returns RunJob's error (nil for a record) and writes nothing,
// and so it does for a job already done. Otherwise RunJob writes nothing more for the attempt,
// and interrupted writes the failure note and returns its error.
func (s *Study) interrupted(ctx context.Context, i int, sig os.Signal) error {
	a := attemptOf(ctx)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ended {
		return a.err
	}
	a.stopped = true
	if a.tmp != "" {
		os.RemoveAll(a.tmp)
	}
	if s.Done(i) { // done before this attempt, or by another worker
		a.unmark(s.runningPath(i))
		return nil
	}
	err := fmt.Errorf("%s: interrupted by signal %v (cancelled, or out of time)", s.Jobs[i], sig)
	_, merr := s.runningMarker(i)
	f, ferr := s.failureNote(i)
	if merr != nil || ferr != nil { // RunJob did not start the job: what is there stays as it is
		return errors.Join(err, merr, ferr)
	}
	attempt := 1
	if f != nil {
		attempt = f.Attempt + 1
	}
	host, _ := os.Hostname()
	werr := writeJSONAtomic(s.failedPath(i), Failure{Index: i, Error: noteError(err.Error()), Attempt: attempt, Host: host, Time: time.Now().UTC()})
	if f, ferr := os.OpenFile(s.LogPath(i), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); ferr == nil {
		fmt.Fprintf(f, "FAILED: %v\n", err)
		f.Close()
	}
	a.unmark(s.runningPath(i))
	return errors.Join(err, werr)
}

// readPartial reads the metrics a script job saved.
func readPartial(path string) (*partial, error) {
	data, err := readlimit.File(path, "a job record", maxRecordSize)
	if err != nil {
		return nil, err
	}
	var p partial
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// noteError returns the error text a failure note keeps: at most noteErrorLen bytes of msg
// (cut at a character), so that the note stays within maxNoteSize however JSON escapes it.
func noteError(msg string) string {
	if len(msg) <= noteErrorLen {
		return msg
	}
	cut := noteErrorLen
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (cut: %d bytes in all; the log holds it whole)", msg[:cut], len(msg))
}
