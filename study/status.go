package study

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gosbi/gosbi/internal/text"
)

// State is the state of a job as Status counts it.
type State string

// The job states.
const (
	Done    State = "done"    // has a record
	Failed  State = "failed"  // its last attempt failed and it has no record
	Running State = "running" // a worker runs it
	Queued  State = "queued"  // submitted to a scheduler, not started
	Invalid State = "invalid" // has a record that is not valid (see Study.Done): it runs again
	// Damaged: its failure note or running marker cannot be read (Status.Damaged names the
	// file); it does not run until the file is removed.
	Damaged State = "damaged"
	Missing State = "missing" // none of the above: it runs when the study runs again
)

var states = []State{Done, Running, Queued, Failed, Invalid, Damaged, Missing}

// StageCount counts the jobs of one stage by state.
type StageCount struct {
	Stage  string
	Counts map[State]int
	Total  int
}

// FailedJob is a failed job with the end of its log.
type FailedJob struct {
	Job     JobInfo
	Failure Failure
	LogTail string
}

// InvalidRecord is a job whose record is invalid, and why.
type InvalidRecord struct {
	Job    JobInfo
	Reason string
}

// DamagedFile is a job's failure note (DIR/failed/NNNNN.json) or running marker
// (DIR/running/NNNNN.json) that cannot be read or does not hold what gosbi writes there. Both
// are written atomically, so only an edit or a disk fault damages them. The job does not run
// until the file is removed: a damaged failure note has lost how many attempts the job had, and
// a damaged running marker cannot tell whether a worker still runs the job (a run also keeps
// that job's temporary directories).
type DamagedFile struct {
	Job    JobInfo
	What   string // "failure note" or "running marker"
	Path   string // the file
	Reason string // what is wrong with it
}

// Status is a snapshot of a study: jobs per stage and state, the failed jobs, the jobs whose
// record is invalid, the damaged failure notes and running markers, and the process that runs
// the study (its lock's holder), if any.
type Status struct {
	Study   string
	Stages  []StageCount
	Failed  []FailedJob
	Invalid []InvalidRecord
	Damaged []DamagedFile // of every job, done or not
	Runner  string        // "pid 123 on host h, running since …"; "" when no process runs the study
	// RunnerRetries is how many more times the run now (Runner) tries a job that fails
	// (Local.Retries, Slurm.Retries); -1 when no run holds the study or its executor does not
	// say (an Executor other than Local and Slurm, a gosbi that did not write it).
	RunnerRetries int
	// Slurm lists the Slurm jobs that a run of the Slurm executor submitted and has not seen
	// leave the queue (DIR/slurm/submitted): the run now (Runner), or one killed before its
	// arrays ended, whose jobs may still run. The study jobs those arrays hold are counted
	// missing (or failed, from an earlier attempt) until they start.
	Slurm []string
	// SlurmQueue is what Slurm's queue says of the jobs in Slurm. Status asks it only where no
	// run holds the study (a run waits for those jobs itself), so that the line about a killed
	// run's jobs says whether they are still there.
	SlurmQueue SlurmQueue
}

// SlurmQueue is what squeue said of the Slurm jobs that a killed run left (Status.Slurm).
type SlurmQueue struct {
	// Asked reports whether squeue answered; Live then lists the jobs it still holds, queued
	// or running (none: all have left the queue, and run no job of the study any more).
	Asked bool
	Live  []string
	// WhyNotAsked says why the queue was not read where Asked is false: squeue is not on
	// PATH, fails, does not answer within 10 seconds, or the list holds more than the 1000
	// jobs Status asks about. What Status says of the jobs may then be stale.
	WhyNotAsked string
}

// logTailLines is how much of a failed job's log Status keeps.
const logTailLines = 15

// Status reads the state of every job from the directory and, where a run that no longer holds
// the study left Slurm jobs (Status.Slurm), asks squeue whether they are still in the queue.
func (s *Study) Status() *Status {
	st := s.status(nil)
	if st.Runner == "" && len(st.Slurm) > 0 {
		st.SlurmQueue = askQueue(st.Slurm)
	}
	return st
}

// slurmAskTimeout bounds how long Status waits for squeue (a variable for the tests).
var slurmAskTimeout = 10 * time.Second

// maxSlurmAsked is how many Slurm jobs Status asks squeue about: their ids go on its command
// line.
const maxSlurmAsked = 1000

// askQueue asks squeue which of the Slurm jobs ids are still queued or running.
func askQueue(ids []string) SlurmQueue {
	if len(ids) > maxSlurmAsked {
		return SlurmQueue{WhyNotAsked: fmt.Sprintf("the study lists %d Slurm jobs, more than the %d status asks squeue about", len(ids), maxSlurmAsked)}
	}
	if _, err := exec.LookPath("squeue"); err != nil {
		return SlurmQueue{WhyNotAsked: "squeue is not on PATH"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), slurmAskTimeout)
	defer cancel()
	live, err := queuedJobs(ctx, ids)
	switch {
	case err == nil:
		return SlurmQueue{Asked: true, Live: live}
	case ctx.Err() != nil:
		return SlurmQueue{WhyNotAsked: fmt.Sprintf("squeue did not answer within %v", slurmAskTimeout)}
	}
	return SlurmQueue{WhyNotAsked: err.Error()}
}

// status is Status with the states a scheduler knows (queued, running) for some jobs.
func (s *Study) status(sched map[int]State) *Status {
	st := &Status{Study: s.Spec.Name, Slurm: s.submittedJobs()}
	st.Runner, st.RunnerRetries = s.runner()
	notes, markers := s.listed("failed"), s.listed("running")
	for _, stage := range s.Spec.Stages {
		c := StageCount{Stage: stage.Name, Counts: map[State]int{}}
		for _, i := range s.StageJobs(stage.Name) {
			js := s.state(i, sched, notes, markers)
			c.Counts[js.state]++
			c.Total++
			if js.state == Failed {
				st.Failed = append(st.Failed, FailedJob{Job: s.Jobs[i], Failure: *js.failure, LogTail: tail(s.LogPath(i), logTailLines)})
			}
			if js.state == Invalid {
				st.Invalid = append(st.Invalid, InvalidRecord{Job: s.Jobs[i], Reason: js.invalid.Error()})
			}
			for _, d := range js.damaged {
				st.Damaged = append(st.Damaged, DamagedFile{Job: d.job, What: d.what, Path: d.path, Reason: d.reason})
			}
		}
		st.Stages = append(st.Stages, c)
	}
	return st
}

// jobState is what Status reads of one job.
type jobState struct {
	state   State
	invalid error          // what is wrong with its record, when state is Invalid
	failure *Failure       // its last failure, when state is Failed
	damaged []*damagedFile // its failure note and running marker, where damaged
}

// listed returns the indices of the jobs with a file in the study's directory sub (failed,
// running), or nil when it cannot be listed.
func (s *Study) listed(sub string) map[int]bool {
	entries, err := os.ReadDir(filepath.Join(s.Dir, sub))
	if err != nil {
		return nil
	}
	out := map[int]bool{}
	for _, e := range entries {
		if i, err := strconv.Atoi(strings.TrimSuffix(e.Name(), ".json")); err == nil {
			out[i] = true
		}
	}
	return out
}

// state is the state of job i: done when its record is valid, else what the scheduler says
// (sched), else running (a marker of a live worker), damaged, failed, invalid or missing.
// notes and markers hold the jobs that have a failure note and a running marker (nil: any may
// have one): only their files are read.
func (s *Study) state(i int, sched map[int]State, notes, markers map[int]bool) jobState {
	var js jobState
	var live bool
	var merr, ferr error
	var f *Failure
	if markers == nil || markers[i] {
		live, merr = s.runningMarker(i)
	}
	if notes == nil || notes[i] {
		f, ferr = s.failureNote(i)
	}
	for _, err := range []error{merr, ferr} {
		if d := (*damagedFile)(nil); errors.As(err, &d) {
			js.damaged = append(js.damaged, d)
		}
	}
	rerr := s.recordError(i)
	switch {
	case rerr == nil:
		js.state = Done
	case sched[i] != "":
		js.state = sched[i]
	case live:
		js.state = Running
	case len(js.damaged) > 0:
		js.state = Damaged
	case f != nil:
		js.state, js.failure = Failed, f
	case !errors.Is(rerr, errNoRecord):
		js.state, js.invalid = Invalid, rerr
	default:
		js.state = Missing
	}
	return js
}

// runningMarker reports whether job i has a running marker of a live worker (see
// runMarker.live): a marker whose worker's lock is free, or that names an ended process of
// this host, is stale (the worker was killed); a marker of another host that claims no lock is
// taken as live, as nobody can tell. A marker that cannot be read, or names no process, is
// damaged: runningMarker returns a *damagedFile then, as nobody can tell.
func (s *Study) runningMarker(i int) (bool, error) {
	m, err := s.readMarker(i)
	if m == nil || err != nil {
		return false, err
	}
	return !m.stale(), nil
}

// stale reports whether the marker's worker is known to have ended (see live): a run removes
// such a marker.
func (m *runMarker) stale() bool {
	live, known := m.live()
	return known && !live
}

// local reports whether the marker's worker ran on this host, where whether it lives can be told.
func (m *runMarker) local() bool {
	host, _ := os.Hostname()
	return m.Host == host
}

// alive reports whether the marker's process exists; it means something only for a local
// marker. A process of that id that started after the marker was written is another one, which
// reuses the id of the worker that wrote it and has ended (where the start of a process can be
// read: Linux).
func (m *runMarker) alive() bool {
	if !processExists(m.PID) {
		return false
	}
	if start, ok := processStart(m.PID); ok && !m.Started.IsZero() && start.After(m.Started.Add(startSlack)) {
		return false
	}
	return true
}

// startSlack is how much later than its marker's time a worker's process may seem to have
// started: the start time of a process is known to the clock tick, and the boot time it is
// counted from to the second.
const startSlack = 2 * time.Second

// liveElsewhere reports whether the marker is of a live worker other than this process: one
// that runs the job now. Of a marker whose worker's state cannot be told (of another host,
// claiming no lock) it says false: a worker killed there (SIGKILL leaves its marker) must not
// stop the job for good.
func (m *runMarker) liveElsewhere() bool {
	if m.local() && m.PID == os.Getpid() {
		return false
	}
	live, known := m.live()
	return live && known
}

// Count returns the number of jobs in a state over all stages.
func (st *Status) Count(state State) int {
	n := 0
	for _, c := range st.Stages {
		n += c.Counts[state]
	}
	return n
}

// Complete reports whether every job is done.
func (st *Status) Complete() bool {
	for _, c := range st.Stages {
		if c.Counts[Done] != c.Total {
			return false
		}
	}
	return true
}

// Line is a one-line summary, "train 3/8 done, 2 running, 1 failed · evaluate 0/8 done".
func (st *Status) Line() string {
	var parts []string
	for _, c := range st.Stages {
		p := fmt.Sprintf("%s %d/%d done", c.Stage, c.Counts[Done], c.Total)
		for _, s := range states[1:] {
			if n := c.Counts[s]; n > 0 {
				p += fmt.Sprintf(", %d %s", n, s)
			}
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " · ")
}

// String is a table of counts per stage and state, then each failed job with its log's end.
func (st *Status) String() string {
	var b bytes.Buffer
	st.write(&b)
	return b.String()
}

func (st *Status) write(w io.Writer) {
	fmt.Fprintf(w, "study %s\n", st.Study)
	if st.Runner != "" {
		fmt.Fprintf(w, "run now by %s\n", st.Runner)
	}
	if l := st.slurmLine(); l != "" {
		fmt.Fprintln(w, l)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "stage\tjobs\t")
	for _, s := range states {
		fmt.Fprintf(tw, "%s\t", s)
	}
	fmt.Fprintln(tw)
	for _, c := range st.Stages {
		fmt.Fprintf(tw, "%s\t%d\t", c.Stage, c.Total)
		for _, s := range states {
			fmt.Fprintf(tw, "%d\t", c.Counts[s])
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	for _, f := range st.Failed {
		fmt.Fprintf(w, "\nFAILED %s, attempt %d on %s: %s\n", f.Job, f.Failure.Attempt, f.Failure.Host, firstLine(f.Failure.Error))
		if f.LogTail != "" {
			fmt.Fprintf(w, "  log:\n    %s\n", strings.ReplaceAll(strings.TrimRight(f.LogTail, "\n"), "\n", "\n    "))
		}
	}
	for _, r := range st.Invalid {
		fmt.Fprintf(w, "\nINVALID record of %s: %s; the job runs again with the next run\n", r.Job, r.Reason)
	}
	for _, d := range st.Damaged {
		fmt.Fprintf(w, "\nDAMAGED %s %s of %s: %s; %s\n", d.What, d.Path, d.Job, d.Reason, d.advice())
	}
}

// retryAdvice says what becomes of the failed jobs. Without a run, they run again with the
// next one. A run that holds the study tries each job up to 1+RunnerRetries times: a failed job
// it has not tried that often runs again in it (one of a stage it has not reached, or that
// Slurm resubmits in a later round); those still failed when it ends stay so until the next.
func (st *Status) retryAdvice() string {
	switch {
	case st.Runner == "":
		return "run the study again to retry them"
	case st.RunnerRetries < 0:
		return fmt.Sprintf("the run now (%s) may retry them itself, its executor does not say how often; "+
			"those still failed when it ends stay failed until the study runs again", st.Runner)
	}
	return fmt.Sprintf("the run now (%s) tries each job up to %s (--retries %d): a failed job it has not tried that often runs again in it; "+
		"those still failed when it ends stay failed until the study runs again", st.Runner, text.Count(st.RunnerRetries+1, "time"), st.RunnerRetries)
}

// rerunAdvice says what becomes of the jobs whose record is invalid: the run now runs them if
// it has not passed their stage yet; the next run runs the others.
func (st *Status) rerunAdvice() string {
	if st.Runner == "" {
		return "run the study again to re-run them"
	}
	return fmt.Sprintf("the run now (%s) re-runs those of the stages it has not reached; run the study again after it ends to re-run the others", st.Runner)
}

// maxSlurmShown is how many Slurm job ids a status line names.
const maxSlurmShown = 10

// slurmLine says which Slurm jobs may hold jobs of the study and what that means for the
// counts ("" when there are none): during a run, that they may; after it, what the queue said
// of them (SlurmQueue), or, where it was not asked, that this may be stale and how to check.
func (st *Status) slurmLine() string {
	if len(st.Slurm) == 0 {
		return ""
	}
	list, ids := shownJobs(st.Slurm)
	if st.Runner != "" {
		return fmt.Sprintf("Slurm jobs %s, submitted by this run or by an earlier run killed before they ended (which this run waits for), may hold jobs of the study, counted missing or failed here until they start (squeue -j %s shows them)", list, ids)
	}
	q := st.SlurmQueue
	n := len(st.Slurm)
	jobs := text.Plural(n, "Slurm job", "Slurm jobs")
	killed := "submitted by a run that ended before " + text.Plural(n, "it", "they") + " left the queue (killed?)"
	switch {
	case !q.Asked:
		why := q.WhyNotAsked
		if why == "" {
			why = "it was not asked"
		}
		return fmt.Sprintf("%s %s %s %s: this may be stale, as status could not ask the queue (%s); squeue -j %s lists those still there, scancel %s cancels them. "+
			"Until they end they may still run jobs counted missing or failed here; the next run waits for them to end, or, where it cannot ask squeue (missing, or failing), "+
			"refuses to start until slurm/submitted is removed (after scancel %s, if they have not ended)",
			jobs, list, text.Plural(n, "was", "were"), killed, why, ids, strings.ReplaceAll(ids, ",", " "), strings.ReplaceAll(ids, ",", " "))
	case len(q.Live) == 0:
		return fmt.Sprintf("%s %s, %s, %s no longer in the queue (squeue): %s no job of the study any more; the next run removes the list (slurm/submitted)",
			jobs, list, killed, text.Plural(n, "is", "are"), text.Plural(n, "it runs", "they run"))
	}
	live, liveIDs := shownJobs(q.Live)
	line := fmt.Sprintf("%s %s still queued or running (squeue), %s: %s run jobs counted missing or failed here; the next run waits for %s to end (scancel %s cancels %s)",
		text.Plural(len(q.Live), "Slurm job", "Slurm jobs"), live, killed,
		text.Plural(len(q.Live), "it may", "they may"), text.Plural(len(q.Live), "it", "them"), strings.ReplaceAll(liveIDs, ",", " "), text.Plural(len(q.Live), "it", "them"))
	if len(q.Live) < n {
		var left []string
		for _, id := range st.Slurm {
			if !slices.Contains(q.Live, id) {
				left = append(left, id)
			}
		}
		l, _ := shownJobs(left)
		line += fmt.Sprintf("; %s no longer in the queue", l)
	}
	return line
}

// shownJobs writes Slurm job ids for a status line: the first maxSlurmShown, joined with
// commas, with how many more there are (list), and those ids alone (ids).
func shownJobs(all []string) (list, ids string) {
	shown, more := all, ""
	if len(all) > maxSlurmShown {
		shown, more = all[:maxSlurmShown], fmt.Sprintf(" and %d more (all listed in the study's slurm/submitted)", len(all)-maxSlurmShown)
	}
	ids = strings.Join(shown, ",")
	return ids + more, ids
}

// advice says what a damaged file stops and what to do.
func (d DamagedFile) advice() string {
	return (&damagedFile{job: d.Job, what: d.What, path: d.Path, reason: d.Reason}).advice()
}

// MIMEBundle shows the status in a notebook (text/plain and a markdown table); the names and
// messages it quotes are escaped, so that Markdown shows them as they are.
func (st *Status) MIMEBundle() map[string]any {
	var b strings.Builder
	fmt.Fprintf(&b, "**study %s**\n\n| stage | jobs |", mdText(st.Study))
	for _, s := range states {
		fmt.Fprintf(&b, " %s |", s)
	}
	fmt.Fprintf(&b, "\n|---|---|%s\n", strings.Repeat("---|", len(states)))
	for _, c := range st.Stages {
		fmt.Fprintf(&b, "| %s | %d |", mdText(c.Stage), c.Total)
		for _, s := range states {
			fmt.Fprintf(&b, " %d |", c.Counts[s])
		}
		b.WriteString("\n")
	}
	if l := st.slurmLine(); l != "" {
		fmt.Fprintf(&b, "\n%s\n", mdText(l))
	}
	for _, f := range st.Failed {
		fmt.Fprintf(&b, "\n**failed** %s: %s\n", mdText(f.Job.String()), mdText(firstLine(f.Failure.Error)))
	}
	for _, r := range st.Invalid {
		fmt.Fprintf(&b, "\n**invalid record** %s: %s\n", mdText(r.Job.String()), mdText(r.Reason))
	}
	for _, d := range st.Damaged {
		fmt.Fprintf(&b, "\n**damaged %s** %s of %s: %s; %s\n", mdText(d.What), mdText(d.Path), mdText(d.Job.String()), mdText(d.Reason), mdText(d.advice()))
	}
	return map[string]any{"text/plain": st.String(), "text/markdown": b.String()}
}

// mdText quotes s as text in Markdown: every ASCII punctuation character is escaped with a
// backslash (CommonMark reads it as itself, a "|" stays in its table cell, "<nil>" is not an
// HTML tag) and line breaks become spaces (so that s stays in its paragraph or table row).
func mdText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r':
			b.WriteByte(' ')
		case r < 0x80 && strings.ContainsRune("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// tailBytes bounds how much of a log tail reads.
const tailBytes = 64 << 10

// tail returns the last n lines of a file, within its last 64 KiB ("" when it cannot be read).
// It reads at most 64 KiB: of a log that grows while it reads, the 64 KiB that were the last
// when it looked at the size; of a stream without a size (a pipe), the first.
func tail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > tailBytes {
		f.Seek(fi.Size()-tailBytes, io.SeekStart)
	}
	data, err := io.ReadAll(io.LimitReader(f, tailBytes))
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TextProgress returns a progress function that writes one status line to w each time the
// counts change.
func TextProgress(w io.Writer) func(*Status) {
	last := ""
	return func(st *Status) {
		if l := st.Line(); l != last {
			fmt.Fprintln(w, l)
			last = l
		}
	}
}
