package study

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/gosbi/gosbi/internal/atomicfile"
	"github.com/gosbi/gosbi/internal/text"
)

// Executor runs the jobs of a study that have no record yet. Executors differ in where jobs run,
// never in what they compute: a job's seed and inputs depend on its key only.
type Executor interface {
	Execute(ctx context.Context, s *Study) error
}

// Run runs the study's missing jobs with e (the local executor when e is nil). It holds the
// study's lock while it runs: when another process runs the same directory, Run returns an
// error wrapping ErrLocked that names it (pid, host, start time). A lock held only by status
// probes (Status, gosbi study status: a shared lock for an instant, never a run's) is tried
// again for up to a second; one held so for longer is an error that does not wrap ErrLocked.
// A lock left by a run that was killed is taken over, with a line on standard error. Before the jobs run, Run removes what
// killed runs left: the temporary directories of jobs that no live worker runs, and their
// running markers, the temporary files of those markers and those of failure notes (each
// judged by its lock: one being written is kept). Where a killed run of the Slurm executor left Slurm jobs that may still run
// jobs of the study (slurm/submitted lists them), Run waits, whatever e is, until squeue lists
// them no more, so that no job runs twice at once; where squeue is missing or keeps failing it
// returns an error saying how to cancel them, and runs nothing. On Windows, Run returns at once
// an error wrapping errors.ErrUnsupported: studies run under WSL there (a worker's running
// marker is renamed while the worker holds it open, which Windows refuses).
func (s *Study) Run(ctx context.Context, e Executor) error {
	return s.run(ctx, e, false, os.Stderr)
}

// run is Run; with wait it waits for the lock instead of failing, saying so on note.
func (s *Study) run(ctx context.Context, e Executor, wait bool, note io.Writer) error {
	if err := runsSupported(); err != nil {
		return err
	}
	if e == nil {
		e = &Local{}
	}
	l, err := s.lock(ctx, wait, note, retriesOf(e))
	if err != nil {
		return err
	}
	defer l.release()
	s.clean(note)
	poll := slurmPoll
	if sl, ok := e.(*Slurm); ok {
		poll = sl.poll()
	}
	if err := s.awaitSlurm(ctx, poll, note); err != nil {
		return err
	}
	return e.Execute(ctx, s)
}

// retriesOf is how many more times e tries a job that fails: Local.Retries, Slurm.Retries, or
// -1 for another executor, which does not say.
func retriesOf(e Executor) int {
	switch e := e.(type) {
	case *Local:
		return e.Retries
	case *Slurm:
		return e.Retries
	}
	return -1
}

// clean removes the temporary directories (jobs/STAGE/.tmp-NNNNN-*), running markers, and
// temporary files of running markers and failure notes that workers killed before they could
// remove them left, except those of jobs whose worker may still run (a marker whose lock is held, one of a live
// process of this host, one of another host that claims no lock, or a damaged marker; a
// temporary file whose lock is held or cannot be probed). The temporary files of markers that
// earlier gosbi versions named otherwise are judged by the marker they hold
// (removeOldMarkerTemps). It reports on note the temporary directories it removed, and each
// damaged marker it kept.
func (s *Study) clean(note io.Writer) {
	judged := map[int]judgement{}
	removed := s.cleanTemps(judged)
	s.cleanMarkers(judged, note)
	// The temporary files of markers whose workers were killed before the rename; those of
	// workers writing their marker now hold its lock and are kept.
	atomicfile.RemoveStale(filepath.Join(s.Dir, "running"))
	removeOldMarkerTemps(filepath.Join(s.Dir, "running"))
	// Those of failure notes, by the same rule: a note being written holds its lock.
	atomicfile.RemoveStale(filepath.Join(s.Dir, "failed"))
	if removed > 0 && note != nil {
		fmt.Fprintf(note, "study %s: removed %d temporary %s of jobs an earlier run left unfinished\n", s.Spec.Name, removed, text.Plural(removed, "directory", "directories"))
	}
}

// judgement is what clean found of a job's running marker (runningMarker), kept so that each
// job's marker is probed once however many temporary directories it left.
type judgement struct {
	live bool
	err  error // the marker is damaged
}

// cleanTemps removes the temporary directories of jobs whose worker has ended and returns how
// many it removed; it records in judged what it found of each job's marker.
func (s *Study) cleanTemps(judged map[int]judgement) int {
	removed := 0
	tmps, _ := filepath.Glob(filepath.Join(s.Dir, "jobs", "*", ".tmp-*"))
	for _, t := range tmps {
		var i int
		if _, err := fmt.Sscanf(filepath.Base(t), ".tmp-%d-", &i); err != nil || i < 0 || i >= len(s.Jobs) {
			continue
		}
		j, ok := judged[i]
		if !ok {
			j.live, j.err = s.runningMarker(i)
			judged[i] = j
		}
		if j.live || j.err != nil {
			continue
		}
		if os.RemoveAll(t) == nil {
			removed++
		}
	}
	return removed
}

// cleanMarkers removes the stale running markers (removeIfStale), except those that
// cleanTemps found live or damaged, and reports each damaged marker on note.
func (s *Study) cleanMarkers(judged map[int]judgement, note io.Writer) {
	markers, _ := filepath.Glob(filepath.Join(s.Dir, "running", "*.json"))
	for _, m := range markers {
		var i int
		if _, err := fmt.Sscanf(filepath.Base(m), "%d.json", &i); err != nil || i < 0 || i >= len(s.Jobs) {
			continue
		}
		err := judged[i].err
		if j, ok := judged[i]; !ok || !j.live && j.err == nil {
			err = s.removeIfStale(i, (*runMarker).stale)
		}
		if err != nil && note != nil {
			fmt.Fprintf(note, "study %s: %s: %v\n", s.Spec.Name, s.Jobs[i], err)
		}
	}
}

// Local runs jobs in this process (script stages in child processes), stage after stage, up
// to Workers jobs at a time.
type Local struct {
	// Workers is the number of jobs run at once; 0 means DefaultWorkers(), below 0 is an error.
	Workers int
	// Retries is how many more times a failed job is tried in the same run: 0 or more
	// (Execute refuses a negative count, which would try no job at all).
	Retries int
	// Progress, if set, is called with the study's status whenever a job starts or ends.
	Progress func(*Status)
}

// DefaultWorkers is the local executor's default parallelism: one job per core. A training of
// a small network spends less CPU time alone on a core than spread over all of them, so
// trainings side by side take less CPU time in all than the same trainings one after another
// on all cores (BenchmarkLocalThroughput measures both).
func DefaultWorkers() int { return runtime.NumCPU() }

// Execute runs the missing jobs of every stage; a stage starts when the previous one has no
// missing job. It returns the failures of the first stage that could not be completed. Like
// Run, it first waits for the Slurm jobs that a killed run of the Slurm executor left.
func (l *Local) Execute(ctx context.Context, s *Study) error {
	if l.Retries < 0 {
		return fmt.Errorf("study %s: Local.Retries = %d, expected 0 or more (how many more times a failed job is tried; 0 tries each job once)", s.Spec.Name, l.Retries)
	}
	if l.Workers < 0 {
		return fmt.Errorf("study %s: Local.Workers = %d, expected 0 or more (jobs run at once; 0 for one per core)", s.Spec.Name, l.Workers)
	}
	if err := s.awaitSlurm(ctx, slurmPoll, os.Stderr); err != nil {
		return err
	}
	workers := l.Workers
	if workers <= 0 {
		workers = DefaultWorkers()
	}
	var mu sync.Mutex
	running := map[int]State{}
	report := func(i int, state State) {
		if l.Progress == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if state == "" {
			delete(running, i)
		} else {
			running[i] = state
		}
		l.Progress(s.status(running))
	}
	ctx = context.WithValue(ctx, procsKey{}, max(1, runtime.NumCPU()/workers))
	if total := physicalMemory(); total > 0 {
		ctx = context.WithValue(ctx, memKey{}, memoryShare(total, workers))
	}
	report(-1, "")
	for _, st := range s.Spec.Stages {
		missing := s.Missing(st.Name)
		if len(missing) == 0 {
			continue
		}
		errs := runPool(ctx, missing, workers, func(i int) error {
			var err error
			for a := 0; a <= l.Retries; a++ {
				report(i, Running)
				err = s.RunJob(ctx, i)
				report(i, "")
				if d := (*damagedFile)(nil); err == nil || ctx.Err() != nil || errors.As(err, &d) || errors.Is(err, errBusy) { // a retry cannot help: a damaged file stays so, the other worker runs on
					break
				}
			}
			return err
		})
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("study %s: interrupted: %w", s.Spec.Name, err)
		}
		if len(errs) > 0 {
			return stageError(s, st.Name, errs)
		}
	}
	return nil
}

// procsKey carries the GOMAXPROCS of script jobs run side by side: the cores shared out.
type procsKey struct{}

// memKey carries the GOMEMLIMIT, in bytes, of script jobs run side by side: their share of
// the machine's memory. Go's collector lets a heap grow to twice its live data by default, so
// two jobs of 6 GB live data each could ask for 24 GB between collections; with the limit each
// collects sooner instead. It is a soft limit: a job whose live data exceeds it still runs.
type memKey struct{}

// memoryShare is the GOMEMLIMIT of one of workers jobs side by side on a machine of total
// bytes: 80% of the memory, shared equally (the rest for the runner and the system).
func memoryShare(total uint64, workers int) uint64 {
	return total / 5 * 4 / uint64(max(1, workers))
}

// physicalMemory returns the machine's memory in bytes from /proc/meminfo, or 0 where that
// cannot be read (then jobs get no memory limit).
func physicalMemory() uint64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[0] == "MemTotal:" && f[2] == "kB" {
			if kb, err := strconv.ParseUint(f[1], 10, 64); err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}

// runPool calls f on every index with at most n calls at a time and returns the errors.
func runPool(ctx context.Context, idx []int, n int, f func(int) error) []error {
	work := make(chan int)
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for w := 0; w < min(n, len(idx)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if err := f(i); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		}()
	}
feed:
	for _, i := range idx {
		select {
		case <-ctx.Done(): // jobs not handed out stay pending
			break feed
		case work <- i:
		}
	}
	close(work)
	wg.Wait()
	return errs
}

// stageError summarizes the failed jobs of a stage.
func stageError(s *Study, stage string, errs []error) error {
	var lines []string
	for k, e := range errs {
		if k == 5 {
			lines = append(lines, fmt.Sprintf("… and %d more", len(errs)-k))
			break
		}
		lines = append(lines, firstLine(e.Error()))
	}
	return fmt.Errorf("study %s: %d %s of stage %q failed (later stages did not run; `gosbi study status %s` shows their logs):\n  %s",
		s.Spec.Name, len(errs), text.Plural(len(errs), "job", "jobs"), stage, s.Dir, strings.Join(lines, "\n  "))
}
