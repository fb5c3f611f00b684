package study

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"text/tabwriter"
)

// State is the state of a job as Status counts it.
type State string

// The job states.
const (
	Done    State = "done"    // has a record
	Failed  State = "failed"  // its last attempt failed and it has no record
	Running State = "running" // a worker runs it
	Queued  State = "queued"  // submitted to a scheduler, not started
	Invalid State = "invalid" // has a record that does not parse or fails its checksum: it runs again
	Missing State = "missing" // none of the above: it runs when the study runs again
)

var states = []State{Done, Running, Queued, Failed, Invalid, Missing}

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

// Status is a snapshot of a study: jobs per stage and state, the failed jobs, the jobs whose
// record is invalid, and the process that runs the study (its lock's holder), if any.
type Status struct {
	Study   string
	Stages  []StageCount
	Failed  []FailedJob
	Invalid []InvalidRecord
	Runner  string // "pid 123 on host h, running since …"; "" when no process runs the study
}

// logTailLines is how much of a failed job's log Status keeps.
const logTailLines = 15

// Status reads the state of every job from the directory.
func (s *Study) Status() *Status { return s.status(nil) }

// status is Status with the states a scheduler knows (queued, running) for some jobs.
func (s *Study) status(sched map[int]State) *Status {
	st := &Status{Study: s.Spec.Name, Runner: s.runner()}
	for _, stage := range s.Spec.Stages {
		c := StageCount{Stage: stage.Name, Counts: map[State]int{}}
		for _, i := range s.StageJobs(stage.Name) {
			state, invalid := s.state(i, sched)
			c.Counts[state]++
			c.Total++
			if f := s.Failure(i); state == Failed && f != nil {
				st.Failed = append(st.Failed, FailedJob{Job: s.Jobs[i], Failure: *f, LogTail: tail(s.LogPath(i), logTailLines)})
			}
			if state == Invalid {
				st.Invalid = append(st.Invalid, InvalidRecord{Job: s.Jobs[i], Reason: invalid.Error()})
			}
		}
		st.Stages = append(st.Stages, c)
	}
	return st
}

// state is the state of job i, with what is wrong with its record when it is Invalid.
func (s *Study) state(i int, sched map[int]State) (State, error) {
	rerr := s.recordError(i)
	switch {
	case rerr == nil:
		return Done, nil
	case sched[i] != "":
		return sched[i], nil
	case s.runningMarker(i):
		return Running, nil
	case s.Failure(i) != nil:
		return Failed, nil
	case !errors.Is(rerr, errNoRecord):
		return Invalid, rerr
	}
	return Missing, nil
}

// runningMarker reports whether job i has a running marker of a live worker: a marker left by
// a process of this host that no longer exists is stale (the worker was killed).
func (s *Study) runningMarker(i int) bool {
	data, err := os.ReadFile(s.runningPath(i))
	if err != nil {
		return false
	}
	var m struct {
		Host string
		PID  int
	}
	if json.Unmarshal(data, &m) != nil {
		return true
	}
	if host, _ := os.Hostname(); m.Host == host && m.PID > 0 {
		return syscall.Kill(m.PID, 0) == nil || errors.Is(syscall.Kill(m.PID, 0), syscall.EPERM)
	}
	return true
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
}

// MIMEBundle shows the status in a notebook (text/plain and a markdown table).
func (st *Status) MIMEBundle() map[string]any {
	var b strings.Builder
	fmt.Fprintf(&b, "**study %s**\n\n| stage | jobs |", st.Study)
	for _, s := range states {
		fmt.Fprintf(&b, " %s |", s)
	}
	fmt.Fprintf(&b, "\n|---|---|%s\n", strings.Repeat("---|", len(states)))
	for _, c := range st.Stages {
		fmt.Fprintf(&b, "| %s | %d |", c.Stage, c.Total)
		for _, s := range states {
			fmt.Fprintf(&b, " %d |", c.Counts[s])
		}
		b.WriteString("\n")
	}
	for _, f := range st.Failed {
		fmt.Fprintf(&b, "\n**failed** %s: %s\n", f.Job, firstLine(f.Failure.Error))
	}
	for _, r := range st.Invalid {
		fmt.Fprintf(&b, "\n**invalid record** %s: %s\n", r.Job, r.Reason)
	}
	return map[string]any{"text/plain": st.String(), "text/markdown": b.String()}
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
func tail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > tailBytes {
		f.Seek(fi.Size()-tailBytes, io.SeekStart)
	}
	data, err := io.ReadAll(f)
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
