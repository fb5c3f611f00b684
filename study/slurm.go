package study

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gosbi/gosbi/internal/readlimit"
	"github.com/gosbi/gosbi/internal/text"
)

// Slurm runs each stage's missing jobs as one `sbatch --array` job (several when a stage has
// more jobs than the cluster's MaxArraySize), each depending with afterok on the previous
// stage's arrays. Every array task runs Command followed by the study directory and the job
// index. When the arrays have left the queue (squeue) and, where the cluster keeps job
// accounting, sacct reports the tasks of the jobs still without a record as ended, those jobs
// get a failure note naming how their task ended and are resubmitted, up to Retries times.
// Cancelling the context cancels the submitted jobs (scancel). The ids of the arrays a run
// submits are listed in DIR/slurm/submitted, which holds at most 64 MiB (over three million
// arrays): a run that would submit more stops with an error. Each task's worker writes its
// output to DIR/slurm/logs/STAGE-JOB_TASK.log, keeping the first 1 MiB and the last 4 MiB as a
// job's log does (see WorkerMain); Slurm's own file of the task (--output) is
// STAGE-JOB_TASK.slurm.
type Slurm struct {
	Partition   string        // --partition; "" for the cluster's default
	Time        string        // --time per task, e.g. "2:00:00"; "" for the partition's default
	Memory      string        // --mem per task, e.g. "4G"; "" for the default
	CPUsPerTask int           // --cpus-per-task; 0 for the default, below 0 an error
	Throttle    int           // most tasks of one array running at once (--array=…%N); 0 for no limit, below 0 an error
	Retries     int           // rounds of resubmission of jobs that end without a record: 0 or more (Execute refuses a negative count)
	Poll        time.Duration // how often the queue is read; 0 means 2s
	Extra       []string      // more sbatch options, e.g. "--account=abc"
	// MaxArray is the largest number of tasks in one array (array indices 0…MaxArray−1); 0
	// reads the cluster's MaxArraySize. A stage with more jobs is split into several arrays.
	MaxArray int
	// Command is the worker command that DIR and INDEX follow; nil means this executable with
	// "study worker" (gosbi study worker DIR INDEX). The command and the study directory must
	// be reachable under the same paths on the compute nodes (a shared file system).
	Command []string
	// Env holds NAME=VALUE pairs the batch script exports before the worker starts.
	Env []string
	// Progress, if set, is called with the study's status after every poll of the queue.
	Progress func(*Status)

	mu   sync.Mutex
	subs []Submission
}

// Submissions returns what Execute has submitted so far, in order. It may be called while
// Execute runs.
func (e *Slurm) Submissions() []Submission {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Submission(nil), e.subs...)
}

// Submission is one array job submitted by the Slurm executor.
type Submission struct {
	Round     int
	Stage     string
	JobID     string
	Offset    int   // array task t runs job Offset + t
	Indices   []int // the study's job indices in the array
	Submitted time.Time
}

// Execute submits the study's missing jobs and waits until they have left the queue. Like
// Run, it first waits for the Slurm jobs that a killed run of the executor left.
func (e *Slurm) Execute(ctx context.Context, s *Study) error {
	if e.Retries < 0 {
		return fmt.Errorf("study %s: Slurm.Retries = %d, expected 0 or more (how many more rounds jobs that end without a record are submitted in; 0 submits each job once)", s.Spec.Name, e.Retries)
	}
	if e.CPUsPerTask < 0 {
		return fmt.Errorf("study %s: Slurm.CPUsPerTask = %d, expected 0 or more (0 for Slurm's default)", s.Spec.Name, e.CPUsPerTask)
	}
	if e.Throttle < 0 {
		return fmt.Errorf("study %s: Slurm.Throttle = %d, expected 0 or more (tasks of one array running at once; 0 for no limit)", s.Spec.Name, e.Throttle)
	}
	if _, err := exec.LookPath("sbatch"); err != nil {
		return fmt.Errorf("study: the Slurm executor needs sbatch, squeue and scancel on PATH: %w", err)
	}
	dir, err := filepath.Abs(s.Dir)
	if err != nil {
		return fmt.Errorf("study: %w", err)
	}
	s = &Study{Dir: dir, Spec: s.Spec, Jobs: s.Jobs}
	if err := os.MkdirAll(filepath.Join(dir, "slurm", "logs"), 0o755); err != nil {
		return fmt.Errorf("study: %w", err)
	}
	if strings.Contains(dir, `\`) {
		return fmt.Errorf("study: the Slurm executor cannot name the per-task logs of %s: sbatch reads a backslash in --output as \"no patterns\"; move the study to a path without one", dir)
	}
	if err := s.awaitSlurm(ctx, e.poll(), os.Stderr); err != nil {
		return err
	}
	defer os.Remove(filepath.Join(dir, "slurm", submittedFile))
	maxArray := e.MaxArray
	if maxArray <= 0 {
		maxArray = maxArraySize(ctx)
	}
	for round := 0; round <= e.Retries; round++ {
		subs, err := e.submitRound(ctx, s, round, maxArray)
		if err != nil {
			return err
		}
		if len(subs) == 0 {
			return nil
		}
		acct, err := e.wait(ctx, s, subs)
		if err != nil {
			return err
		}
		e.noteLost(ctx, s, subs, acct)
		if s.status(nil).Complete() {
			return nil
		}
	}
	return notCompleteError(s.Spec.Name, s.Dir, e.Retries+1, *s.status(nil))
}

// notCompleteError is the error of a study that Slurm rounds left incomplete: the failed jobs'
// errors and the damaged files, or, when there are none, that the missing jobs left no note.
func notCompleteError(name, dir string, rounds int, st Status) error {
	var errs []error
	for _, f := range st.Failed {
		errs = append(errs, fmt.Errorf("%s: %s", f.Job, f.Failure.Error))
	}
	for _, d := range st.Damaged {
		errs = append(errs, fmt.Errorf("%s: %s %s is damaged (%s); %s", d.Job, d.What, d.Path, d.Reason, d.advice()))
	}
	if len(errs) == 0 {
		return fmt.Errorf("study %s: not complete after %s (%s), and no missing job left a failure note: Slurm may have cancelled them before they started (see sacct for their state); `gosbi study status %s` lists them",
			name, text.Count(rounds, "Slurm round"), st.Line(), dir)
	}
	return fmt.Errorf("study %s: not complete after %s (%s); `gosbi study status %s` shows the failed jobs' logs: %w",
		name, text.Count(rounds, "Slurm round"), st.Line(), dir, errors.Join(errs...))
}

// submitRound submits every stage that has missing jobs, chained with afterok. It submits
// nothing while a missing job has a damaged failure note or running marker (such a job does not
// run, and the stages after it would wait for it).
func (e *Slurm) submitRound(ctx context.Context, s *Study, round, maxArray int) ([]Submission, error) {
	var damaged []string
	for _, st := range s.Spec.Stages {
		for _, i := range s.Missing(st.Name) {
			_, merr := s.runningMarker(i)
			_, ferr := s.failureNote(i)
			for _, err := range []error{merr, ferr} {
				if err != nil {
					damaged = append(damaged, fmt.Sprintf("%s: %v", s.Jobs[i], err))
				}
			}
		}
	}
	if n := len(damaged); n > 0 {
		if n > 5 {
			damaged = append(damaged[:5], fmt.Sprintf("… and %d more", n-5))
		}
		return nil, fmt.Errorf("study %s: submitted nothing: %d damaged %s (`gosbi study status %s` lists them all):\n  %s",
			s.Spec.Name, n, text.Plural(n, "file", "files"), s.Dir, strings.Join(damaged, "\n  "))
	}
	var subs []Submission
	var prev []string
	for _, st := range s.Spec.Stages {
		missing := s.Missing(st.Name)
		if len(missing) == 0 {
			continue
		}
		first := s.StageJobs(st.Name)[0]
		var ids []string
		for lo := 0; lo < len(missing); {
			// one array holds indices first+base … first+base+maxArray−1
			base := missing[lo] - first
			hi := lo
			for hi < len(missing) && missing[hi]-first-base < maxArray {
				hi++
			}
			now := time.Now().Add(-time.Second) // file times may be coarser than the clock
			id, err := e.submit(ctx, s, st.Name, first+base, missing[lo:hi], prev)
			if err != nil {
				e.cancel(subs)
				return nil, err
			}
			ids = append(ids, id)
			if err := appendSubmitted(s, id); err != nil {
				e.cancel(append(subs, Submission{JobID: id}))
				return nil, err
			}
			subs = append(subs, Submission{Round: round, Stage: st.Name, JobID: id, Offset: first + base, Indices: missing[lo:hi], Submitted: now})
			e.mu.Lock()
			e.subs = append(e.subs, subs[len(subs)-1])
			e.mu.Unlock()
			lo = hi
		}
		prev = ids
	}
	return subs, nil
}

// submit writes the batch script of one array and submits it; the array index of job i is
// i − offset.
func (e *Slurm) submit(ctx context.Context, s *Study, stage string, offset int, idx []int, after []string) (string, error) {
	cmd := e.Command
	if cmd == nil {
		exe, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("study: finding the gosbi binary for the workers: %w", err)
		}
		cmd = []string{exe, "study", "worker"}
	}
	var b strings.Builder
	b.WriteString("#!/bin/sh\n# written by the gosbi study Slurm executor\n")
	for _, kv := range e.Env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return "", fmt.Errorf("study: Slurm.Env entry %q, expected NAME=VALUE", kv)
		}
		fmt.Fprintf(&b, "export %s=%s\n", k, shellQuote(v))
	}
	fmt.Fprintf(&b, "export %s=%s\"$SLURM_ARRAY_JOB_ID\"_\"$SLURM_ARRAY_TASK_ID\".log\n", envTaskLog, shellQuote(filepath.Join(s.Dir, "slurm", "logs", stage+"-")))
	b.WriteString("exec")
	for _, c := range cmd {
		b.WriteString(" " + shellQuote(c))
	}
	fmt.Fprintf(&b, " %s \"$((SLURM_ARRAY_TASK_ID + %d))\"\n", shellQuote(s.Dir), offset)
	script := filepath.Join(s.Dir, "slurm", fmt.Sprintf("%s-%05d.sh", stage, offset))
	if err := writeFileAtomic(script, []byte(b.String())); err != nil {
		return "", err
	}
	if err := os.Chmod(script, 0o755); err != nil {
		return "", fmt.Errorf("study: %w", err)
	}
	local := make([]int, len(idx))
	for k, i := range idx {
		local[k] = i - offset
	}
	array := ranges(local)
	if e.Throttle > 0 {
		array += "%" + strconv.Itoa(e.Throttle)
	}
	args := []string{"--parsable", "--job-name=" + sanitize("gosbi-"+s.Spec.Name+"-"+stage), "--array=" + array,
		"--output=" + outputPattern(s.Dir, stage)}
	if len(after) > 0 {
		args = append(args, "--dependency=afterok:"+strings.Join(after, ":"), "--kill-on-invalid-dep=yes")
	}
	if e.Partition != "" {
		args = append(args, "--partition="+e.Partition)
	}
	if e.Time != "" {
		args = append(args, "--time="+e.Time)
	}
	if e.Memory != "" {
		args = append(args, "--mem="+e.Memory)
	}
	if e.CPUsPerTask > 0 {
		args = append(args, "--cpus-per-task="+strconv.Itoa(e.CPUsPerTask))
	}
	args = append(args, e.Extra...)
	args = append(args, script)
	out, err := slurmCmd(ctx, "sbatch", args...)
	if err != nil {
		return "", err
	}
	id, _, _ := strings.Cut(strings.TrimSpace(out), ";")
	if _, err := strconv.Atoi(id); err != nil {
		return "", fmt.Errorf("study: sbatch answered %q, expected a job id", out)
	}
	return id, nil
}

// poll is how often the executor reads the queue.
func (e *Slurm) poll() time.Duration {
	if e.Poll > 0 {
		return e.Poll
	}
	return slurmPoll
}

// sacctSettle is how long the executor waits, after squeue has stopped listing a round's
// tasks, while sacct's account of the unfinished ones does not change: sacct's records lag the
// queue by seconds, and the record of a task sacct reports completed may reach a shared file
// system late. Only a broken squeue or accounting leaves tasks pending or running in sacct
// this long; their jobs are then noted lost. (A variable for the tests.)
var sacctSettle = 5 * time.Minute

// wait polls squeue until the submitted arrays have left the queue and, where accounting is
// on, sacct reports every task of a job without a record as ended; it returns sacct's
// accounts (nil where accounting is off). Cancelling ctx cancels the arrays.
func (e *Slurm) wait(ctx context.Context, s *Study, subs []Submission) (map[int]account, error) {
	poll := e.poll()
	ids := make([]string, len(subs))
	byID := map[string]Submission{}
	for k, sub := range subs {
		ids[k] = sub.JobID
		byID[sub.JobID] = sub
	}
	failures := 0
	var changed time.Time  // when sacct's account of the unfinished jobs last changed
	var last map[int]State // that account
	for {
		queue, err := e.queue(ctx, ids, byID)
		if ctx.Err() != nil {
			e.cancel(subs)
			return nil, fmt.Errorf("study %s: interrupted; cancelled Slurm jobs %s: %w", s.Spec.Name, strings.Join(ids, ","), ctx.Err())
		}
		if err != nil {
			if failures++; failures > 5 {
				return nil, err
			}
		} else {
			failures = 0
			var acct map[int]account
			if len(queue) == 0 {
				acct = s.unsettled(ctx, subs, ids, byID, queue)
				if changed.IsZero() || !maps.Equal(queue, last) {
					changed, last = time.Now(), maps.Clone(queue)
				} else if time.Since(changed) > sacctSettle {
					clear(queue)
				}
			}
			if e.Progress != nil {
				e.Progress(s.status(queue))
			}
			if len(queue) == 0 {
				return acct, nil
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(poll):
		}
	}
}

// unsettled asks sacct about the jobs of subs that have neither a record nor a failure note
// of this submission, once squeue lists none of their tasks. It adds to sched, as queued or
// running, those sacct does not report as ended (not yet recorded, pending, running) and those
// it reports completed (their record is on its way). It returns sacct's accounts, or nil where
// sacct fails (accounting is off): squeue's word is then final.
func (s *Study) unsettled(ctx context.Context, subs []Submission, ids []string, byID map[string]Submission, sched map[int]State) map[int]account {
	var open []int
	for _, sub := range subs {
		for _, i := range sub.Indices {
			if !s.Done(i) && !s.recentFailure(i, sub) {
				open = append(open, i)
			}
		}
	}
	if len(open) == 0 {
		return nil
	}
	acct, err := accounts(ctx, ids, byID)
	if err != nil {
		return nil
	}
	for _, i := range open {
		a, ok := acct[i]
		switch {
		case !ok:
			sched[i] = Queued
		case !a.final():
			sched[i] = a.sched()
		case a.State == "COMPLETED":
			sched[i] = Running
		}
	}
	return acct
}

// queue reads the state of the submitted arrays' tasks still in the queue, by job index.
func (e *Slurm) queue(ctx context.Context, ids []string, byID map[string]Submission) (map[int]State, error) {
	out, err := slurmCmd(ctx, "squeue", "-h", "-r", "-j", strings.Join(ids, ","), "-o", "%F %K %t")
	if err != nil {
		if strings.Contains(err.Error(), "Invalid job id") { // all of them purged already
			return map[int]State{}, nil
		}
		return nil, err
	}
	q := map[int]State{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		sub, ok := byID[f[0]]
		task, err := strconv.Atoi(f[1])
		if !ok || err != nil {
			continue
		}
		i := sub.Offset + task
		switch f[2] {
		case "PD", "CF", "RQ", "RH", "RF", "RS", "S", "ST":
			q[i] = Queued
		default:
			q[i] = Running
		}
	}
	return q, nil
}

// noteLost writes a failure note for jobs whose array task left the queue without a record or
// a note of its own (cancelled, out of time or memory, node failure), naming its Slurm log and
// how the task ended (acct holds sacct's accounts of the tasks; nil without accounting).
func (e *Slurm) noteLost(ctx context.Context, s *Study, subs []Submission, acct map[int]account) {
	host, _ := os.Hostname()
	for _, sub := range subs {
		for _, i := range sub.Indices {
			if s.Done(i) {
				continue
			}
			// The task has left the queue: its marker is stale unless another worker runs the job.
			s.removeIfStale(i, func(m *runMarker) bool { return !m.liveElsewhere() })
			if s.recentFailure(i, sub) {
				continue
			}
			f, err := s.failureNote(i)
			if err != nil { // a damaged note stays as it is (Status names it)
				continue
			}
			task := fmt.Sprintf("%s_%d", sub.JobID, i-sub.Offset)
			a, ok := acct[i]
			state := taskState(ctx, task, a, ok)
			attempt := 1
			if f != nil {
				attempt = f.Attempt + 1
			}
			log := filepath.Join(s.Dir, "slurm", "logs", fmt.Sprintf("%s-%s", sub.Stage, task))
			msg := fmt.Sprintf("Slurm array task %s ended without a record (%s); its logs: %s.log (the worker's output), %s.slurm (Slurm's)", task, state, log, log)
			for _, ext := range []string{".log", ".slurm"} {
				if t := tail(log+ext, 5); t != "" {
					msg += "\n" + t
				}
			}
			writeJSONAtomic(s.failedPath(i), Failure{Index: i, Error: noteError(msg), Attempt: attempt, Host: host, Time: time.Now().UTC()})
		}
	}
}

// recentFailure reports whether the failure note of job i was written by the worker of this
// submission (after the submission was made).
func (s *Study) recentFailure(i int, sub Submission) bool {
	fi, err := os.Stat(s.failedPath(i))
	if err != nil {
		return false
	}
	return !fi.ModTime().Before(sub.Submitted)
}

// taskState tells how an array task ended: scontrol's account while it still knows the task
// (its Reason is the more precise), else a, sacct's, where recorded.
func taskState(ctx context.Context, task string, a account, recorded bool) string {
	if out, err := slurmCmd(ctx, "scontrol", "show", "job", task); err == nil {
		if f := fieldsWith(out, "JobState=", "Reason=", "ExitCode="); len(f) > 0 {
			return strings.Join(f, " ")
		}
	}
	switch {
	case recorded && a.final():
		return a.String()
	case recorded:
		return "state unknown: no longer in the queue; sacct still reports " + a.String()
	}
	return "state unknown: no longer in the queue"
}

func fieldsWith(s string, prefixes ...string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		for _, p := range prefixes {
			if strings.HasPrefix(f, p) {
				out = append(out, f)
			}
		}
	}
	return out
}

// cancel cancels submitted arrays (errors are ignored: they may have ended).
func (e *Slurm) cancel(subs []Submission) {
	if len(subs) == 0 {
		return
	}
	var ids []string
	for _, s := range subs {
		ids = append(ids, s.JobID)
	}
	ctx, done := context.WithTimeout(context.Background(), 30*time.Second)
	defer done()
	slurmCmd(ctx, "scancel", ids...)
}

// maxArraySize reads MaxArraySize from the cluster's configuration (1001, Slurm's default,
// when it cannot); array indices must stay below it.
func maxArraySize(ctx context.Context) int {
	out, err := slurmCmd(ctx, "scontrol", "show", "config")
	if err == nil {
		for _, line := range strings.Split(out, "\n") {
			k, v, ok := strings.Cut(line, "=")
			if ok && strings.TrimSpace(k) == "MaxArraySize" {
				if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 1 {
					return n
				}
			}
		}
	}
	return 1001
}

// slurmWaitDelay bounds how long a Slurm client command's output is read once the command has
// ended or its context is done: a wrapper script may leave a process behind that holds the
// output open (a variable for the tests).
var slurmWaitDelay = 2 * time.Second

// slurmCmd runs a Slurm client command and returns its standard output.
func slurmCmd(ctx context.Context, name string, args ...string) (string, error) {
	stdout, stderr, err := runSlurm(ctx, name, args...)
	if err != nil {
		return stdout, fmt.Errorf("study: %s %s: %w: %s", name, strings.Join(args, " "), err, stderr)
	}
	return stdout, nil
}

// runSlurm runs a Slurm client command and returns its standard output and error. A command
// that ended well counts as such even where a process it left behind held its output open
// past slurmWaitDelay: what it wrote before it ended has been read.
func runSlurm(ctx context.Context, name string, args ...string) (stdout, stderr string, err error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.WaitDelay = slurmWaitDelay
	err = cmd.Run()
	if errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil && cmd.ProcessState.Success() {
		err = nil
	}
	return out.String(), strings.TrimSpace(errOut.String()), err
}

// maxQueueReason bounds how much of squeue's standard error queuedJobs quotes.
const maxQueueReason = 200

// queuedJobs asks squeue which of the Slurm jobs ids are still queued or running, and returns
// those (none where squeue knows none of them any more: it says "Invalid job id" once all have
// been purged). Its error is short, without the ids: how squeue ended and the start of what it
// wrote on its standard error. A line of squeue naming a job not asked about is an error, as
// it cannot be told which job it stands for.
func queuedJobs(ctx context.Context, ids []string) ([]string, error) {
	out, stderr, err := runSlurm(ctx, "squeue", "-h", "-j", strings.Join(ids, ","), "-o", "%F")
	if err != nil {
		if strings.Contains(stderr, "Invalid job id") {
			return nil, nil
		}
		if len(stderr) > maxQueueReason {
			stderr = strings.ToValidUTF8(stderr[:maxQueueReason], "") + "…"
		}
		if stderr == "" {
			return nil, fmt.Errorf("squeue: %w", err)
		}
		return nil, fmt.Errorf("squeue: %w: %s", err, stderr)
	}
	asked := map[string]bool{}
	for _, id := range ids {
		asked[id] = true
	}
	listed := map[string]bool{}
	for _, id := range strings.Fields(out) {
		if !asked[id] {
			return nil, fmt.Errorf("squeue listed a job %.40q, not one of those asked about", id)
		}
		listed[id] = true
	}
	var live []string
	for _, id := range ids {
		if listed[id] {
			live = append(live, id)
			delete(listed, id) // an id listed twice in the file counts once
		}
	}
	return live, nil
}

// outputPattern is sbatch's --output of a stage's array tasks: DIR/slurm/logs/STAGE-%A_%a.slurm,
// every % of the directory doubled, since sbatch reads % as the start of a pattern. The worker
// writes its own output to STAGE-JOB_TASK.log beside it (envTaskLog), bounded; this file keeps
// what the batch shell and Slurm write.
func outputPattern(dir, stage string) string {
	logs := strings.ReplaceAll(filepath.Join(dir, "slurm", "logs"), "%", "%%")
	return logs + string(filepath.Separator) + stage + "-%A_%a.slurm"
}

// submittedFile lists the Slurm job ids that a run of the Slurm executor has submitted, one a
// line, while it runs; Execute removes it when it returns. A run that was killed leaves it, and
// the next run, with any executor, waits until those jobs have left the queue before it runs
// or submits anything, so that no job runs twice (awaitSlurm).
const submittedFile = "submitted"

// maxSubmittedSize bounds submittedFile (64 MiB, over three million job ids of up to 20
// digits), which the next run reads whole: a run refuses to submit an array whose id would
// take the list past it, and a list found larger is refused before it is read.
const maxSubmittedSize = 64 << 20

// appendSubmitted adds a job id to the study's submittedFile; an id that would take the file
// past maxSubmittedSize is an error, and the file is left as it was.
func appendSubmitted(s *Study, id string) error {
	file := filepath.Join(s.Dir, "slurm", submittedFile)
	f, err := os.OpenFile(file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("study: %w", err)
	}
	if st, err := f.Stat(); err == nil && st.Size()+int64(len(id))+1 > maxSubmittedSize {
		f.Close()
		return fmt.Errorf("study %s: Slurm job %s would take %s, the list of the Slurm jobs this run submitted, past the %d MiB it may hold: submit fewer arrays in one run (a larger Slurm.MaxArray, fewer Retries); the job is cancelled",
			s.Spec.Name, id, file, maxSubmittedSize>>20)
	}
	_, err = fmt.Fprintln(f, id)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("study: recording Slurm job %s: %w", id, err)
	}
	return nil
}

// slurmPoll is how often the Slurm queue is read where no Slurm.Poll says otherwise (a
// variable for the tests).
var slurmPoll = 2 * time.Second

// awaitSlurm waits until the Slurm jobs that an earlier run of the Slurm executor submitted and
// did not see end (it was killed; its submittedFile lists them) have left the queue, reading
// squeue every poll and saying once on note (if not nil) that it waits; it then removes the
// file. Those jobs run jobs of the study, which must not run a second time beside them. Where
// squeue is missing or keeps failing, nothing can tell whether they are gone: it returns an
// error saying how to cancel them and which file to remove, and keeps the file.
func (s *Study) awaitSlurm(ctx context.Context, poll time.Duration, note io.Writer) error {
	file := filepath.Join(s.Dir, "slurm", submittedFile)
	data, err := readlimit.File(file, "a list of Slurm job ids", maxSubmittedSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var large *readlimit.TooLargeError
	if errors.As(err, &large) {
		return fmt.Errorf("study %s: %s, the list of the Slurm jobs an earlier run submitted, is larger than the %d MiB a run writes: it is damaged, and the Slurm jobs it lists may still run jobs of this study; cancel them (squeue --me lists yours, scancel cancels them) and remove %s",
			s.Spec.Name, file, maxSubmittedSize>>20, file)
	}
	if err != nil {
		return fmt.Errorf("study %s: reading the Slurm jobs of an earlier run: %w", s.Spec.Name, err)
	}
	ids := strings.Fields(string(data))
	if len(ids) == 0 {
		return removeSubmitted(s.Spec.Name, file)
	}
	unknown := func(err error) error {
		return fmt.Errorf("study %s: an earlier run, killed before it ended, submitted the Slurm jobs %s (listed in %s), which may still run jobs of this study; this run cannot tell whether those Slurm jobs are gone (%w); cancel them (scancel %s) if they may still run, then remove %s",
			s.Spec.Name, strings.Join(ids, ","), file, err, strings.Join(ids, " "), file)
	}
	if _, err := exec.LookPath("squeue"); err != nil {
		return unknown(err)
	}
	said := false
	for failures := 0; ; {
		live, err := queuedJobs(ctx, ids)
		switch {
		case ctx.Err() != nil:
		case err != nil:
			if failures++; failures > 5 {
				return unknown(err)
			}
		case len(live) == 0:
			return removeSubmitted(s.Spec.Name, file)
		default:
			failures = 0
			if !said && note != nil {
				fmt.Fprintf(note, "study %s: waiting for the Slurm jobs %s of an earlier run to leave the queue before running or submitting jobs (scancel %s cancels them)\n",
					s.Spec.Name, strings.Join(ids, ","), strings.Join(ids, " "))
			}
			said = true
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("study %s: stopped while waiting for the Slurm jobs %s of an earlier run: %w", s.Spec.Name, strings.Join(ids, ","), ctx.Err())
		case <-time.After(poll):
		}
	}
}

// submittedJobs returns the Slurm job ids listed in the study's submittedFile, or nil where
// there is none or it cannot be read (a run then says what is wrong with it).
func (s *Study) submittedJobs() []string {
	data, err := readlimit.File(filepath.Join(s.Dir, "slurm", submittedFile), "a list of Slurm job ids", maxSubmittedSize)
	if err != nil {
		return nil
	}
	ids := strings.Fields(string(data))
	if len(ids) == 0 {
		return nil
	}
	return ids
}

// removeSubmitted removes the submittedFile file once its jobs have left the queue.
func removeSubmitted(name, file string) error {
	if err := os.Remove(file); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("study %s: the Slurm jobs of an earlier run have left the queue, but their list stays (remove it): %w", name, err)
	}
	return nil
}

// ranges writes sorted integers as Slurm's array list, "0-3,5,7-9".
func ranges(v []int) string {
	var parts []string
	for k := 0; k < len(v); {
		j := k
		for j+1 < len(v) && v[j+1] == v[j]+1 {
			j++
		}
		if j == k {
			parts = append(parts, strconv.Itoa(v[k]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", v[k], v[j]))
		}
		k = j + 1
	}
	return strings.Join(parts, ",")
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
