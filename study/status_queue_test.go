package study

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// killedRunStudy is a study whose slurm/submitted lists the Slurm jobs 2981 and 2982 of a run
// that was killed: no run holds it.
func killedRunStudy(t *testing.T) *Study {
	t.Helper()
	s, err := Create(t.TempDir(), &Spec{Name: "killed", Axes: []Axis{{Name: "x", Values: []string{"a", "b"}}}, Stages: []Stage{{Name: "work", Func: "none"}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(s.Dir, "slurm"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Dir, "slurm", submittedFile), []byte("2981\n2982\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestStatusAsksQueueOfKilledRun: the Slurm line of a killed run's jobs stayed, word for word,
// until the next run removed slurm/submitted, as Status read no queue: it said they "may still
// run" long after they had left it. Status now asks squeue (a fake on PATH) and says which are
// still queued or running and which are no longer in the queue; where squeue is missing or
// fails, it says that the line may be stale and how to check.
func TestStatusAsksQueueOfKilledRun(t *testing.T) {
	for _, c := range []struct {
		name    string
		squeue  string // the fake squeue's script; "" for none on PATH
		want    []string
		wantNot []string
	}{
		{"one still queued", "echo 2981", // squeue -o %F: the array job of each task listed
			[]string{"Slurm job 2981 still queued or running", "2982 no longer in the queue", "scancel 2981"},
			[]string{"may be stale", "scancel 2981 2982"}},
		{"both running", "printf '2981\\n2982\\n2982\\n'",
			[]string{"Slurm jobs 2981,2982 still queued or running", "scancel 2981 2982"},
			[]string{"no longer in the queue", "may be stale"}},
		{"none listed", "exit 0",
			[]string{"Slurm jobs 2981,2982", "no longer in the queue", "run no job of the study"},
			[]string{"still queued", "may still run", "may be stale"}},
		{"purged", "echo 'slurm_load_jobs error: Invalid job id specified' >&2; exit 1",
			[]string{"Slurm jobs 2981,2982", "no longer in the queue"},
			[]string{"still queued", "may be stale"}},
		{"squeue fails", "echo 'Unable to contact slurm controller' >&2; exit 1",
			[]string{"may be stale", "Unable to contact slurm controller", "squeue -j 2981,2982", "scancel 2981 2982"},
			[]string{"no longer in the queue", "still queued or running"}},
		{"lists another job", "echo 4000", // which job it stands for cannot be told
			[]string{"may be stale", `squeue listed a job "4000", not one of those asked about`},
			[]string{"no longer in the queue", "still queued or running"}},
		{"no squeue", "",
			[]string{"may be stale", "squeue is not on PATH", "squeue -j 2981,2982", "scancel 2981 2982"},
			[]string{"no longer in the queue", "still queued or running"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := killedRunStudy(t)
			scripts := map[string]string{}
			if c.squeue != "" {
				scripts["squeue"] = c.squeue
			}
			fakeSlurm(t, scripts)
			t.Setenv("PATH", strings.SplitN(os.Getenv("PATH"), string(os.PathListSeparator), 2)[0]) // the fakes only
			st := s.Status()
			md, _ := st.MIMEBundle()["text/markdown"].(string)
			for _, w := range c.want {
				if !strings.Contains(st.String(), w) {
					t.Errorf("status:\n%s\nwant it to contain %q", st, w)
				}
				if !strings.Contains(md, mdText(w)) {
					t.Errorf("markdown:\n%s\nwant it to contain %q", md, mdText(w))
				}
			}
			for _, w := range c.wantNot {
				if strings.Contains(st.String(), w) {
					t.Errorf("status:\n%s\nsays %q, not true here", st, w)
				}
			}
		})
	}
}

// TestStatusQueueUnanswered: a squeue that does not answer in time (a controller that hangs)
// and a list longer than Status asks squeue about leave the line saying it may be stale, and
// why, rather than Status waiting without end or putting every id on squeue's command line.
func TestStatusQueueUnanswered(t *testing.T) {
	defer func(d time.Duration) { slurmAskTimeout = d }(slurmAskTimeout)
	slurmAskTimeout = 100 * time.Millisecond
	many := make([]string, maxSlurmAsked+1)
	for k := range many {
		many[k] = strconv.Itoa(3000 + k)
	}
	for _, c := range []struct {
		name, squeue string
		ids          []string // written to slurm/submitted; nil for 2981 and 2982
		want         []string
	}{
		{"hangs", "exec sleep 30", nil, []string{"may be stale", "squeue did not answer within 100ms", "squeue -j 2981,2982"}},
		{"too many", "echo 3000", many, []string{"may be stale", "the study lists 1001 Slurm jobs, more than the 1000 status asks squeue about", "and 991 more"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := killedRunStudy(t)
			if c.ids != nil {
				if err := os.WriteFile(filepath.Join(s.Dir, "slurm", submittedFile), []byte(strings.Join(c.ids, "\n")), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			fakeSlurm(t, map[string]string{"squeue": c.squeue})
			st := s.Status()
			for _, w := range c.want {
				if !strings.Contains(st.String(), w) {
					t.Errorf("status:\n%s\nwant it to contain %q", st, w)
				}
			}
			if st.SlurmQueue.Asked {
				t.Errorf("SlurmQueue = %+v, want it not asked", st.SlurmQueue)
			}
		})
	}
}

// TestStatusQueueOutputHeldOpen: a squeue (a wrapper script) that leaves a process behind
// holding its standard output kept Status waiting for that process to end, past the timeout
// of squeue, as nothing bounded the wait for the output to close. Status now stops reading
// the output slurmWaitDelay after squeue ended or timed out: where squeue ended well, its
// answer counts; where it hung, the line says it did not answer. The process left behind
// sleeps far longer than the test waits, and the test ends it.
func TestStatusQueueOutputHeldOpen(t *testing.T) {
	defer func(d, w time.Duration) { slurmAskTimeout, slurmWaitDelay = d, w }(slurmAskTimeout, slurmWaitDelay)
	slurmWaitDelay = 100 * time.Millisecond
	for _, c := range []struct {
		name, squeue string // squeue: what it does after leaving a sleeping process behind
		timeout      time.Duration
		want         []string
	}{
		{"answers", "echo 2981", 10 * time.Second, []string{"Slurm job 2981 still queued or running", "2982 no longer in the queue"}},
		{"hangs", "exec sleep 600", 100 * time.Millisecond, []string{"may be stale", "squeue did not answer within 100ms"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			slurmAskTimeout = c.timeout
			s := killedRunStudy(t)
			pid := filepath.Join(t.TempDir(), "pid")
			fakeSlurm(t, map[string]string{"squeue": "sleep 600 &\necho $! > " + pid + "\n" + c.squeue})
			t.Cleanup(func() { killPID(t, pid) })
			done := make(chan *Status, 1)
			go func() { done <- s.Status() }()
			var st *Status
			select {
			case st = <-done:
			case <-time.After(time.Minute): // far past the timeout and delay: Status waits for the sleep
				killPID(t, pid)
				t.Fatalf("Status still waits for squeue a minute after it ended or timed out: %s", <-done)
			}
			for _, w := range c.want {
				if !strings.Contains(st.String(), w) {
					t.Errorf("status:\n%s\nwant it to contain %q", st, w)
				}
			}
		})
	}
}

// killPID ends the process whose id the file pid holds, if it is there.
func killPID(t *testing.T, pid string) {
	data, err := os.ReadFile(pid)
	if err != nil {
		return
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Errorf("the fake squeue's pid file: %v", err)
		return
	}
	if p, err := os.FindProcess(n); err == nil {
		p.Kill()
	}
}

// TestStatusQueueReasonShort: where squeue failed, the Slurm line quoted its whole command,
// with every id on it (up to the 1000 Status asks about), past the ten a line names. It now
// says how squeue ended and the start of what it wrote on its standard error, at most
// maxQueueReason bytes of it.
func TestStatusQueueReasonShort(t *testing.T) {
	ids := make([]string, 20)
	for k := range ids {
		ids[k] = strconv.Itoa(3000 + k)
	}
	long := strings.Repeat("x", 3*maxQueueReason)
	for _, c := range []struct {
		name, stderr string
		want         []string
	}{
		{"short", "Unable to contact slurm controller", []string{"(squeue: exit status 1: Unable to contact slurm controller)", "3000,3001", "and 10 more"}},
		{"long", long, []string{"(squeue: exit status 1: " + long[:maxQueueReason] + "…)"}},
		{"silent", "", []string{"(squeue: exit status 1)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := killedRunStudy(t)
			if err := os.WriteFile(filepath.Join(s.Dir, "slurm", submittedFile), []byte(strings.Join(ids, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
			fakeSlurm(t, map[string]string{"squeue": "printf '%s' '" + c.stderr + "' >&2; exit 1"})
			line := s.Status().slurmLine()
			for _, w := range c.want {
				if !strings.Contains(line, w) {
					t.Errorf("%q\nwant it to contain %q", line, w)
				}
			}
			if strings.Contains(line, "3019") || strings.Contains(line, long[:maxQueueReason+1]) {
				t.Errorf("%q\nnames a job past the first ten or quotes more than %d bytes of squeue's error", line, maxQueueReason)
			}
		})
	}
}
