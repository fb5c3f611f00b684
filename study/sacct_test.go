package study

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// sacctOutput is `sacct -n -X -P -j 500,501 -o JobID,State,ExitCode,Reason` as Slurm 22.05
// writes it, for two arrays of one round: 500 holds jobs 0…9 (offset 0), 501 holds jobs
// 12…14 (offset 10, tasks 2…4). Job 10 has no line (sacct lags the queue); 1003 and 1004_1
// are other users' jobs.
const sacctOutput = `500_0|COMPLETED|0:0|None
500_1|FAILED|3:0|None
500_2|CANCELLED by 0|0:15|None
500_3|TIMEOUT|0:0|None
500_4|OUT_OF_MEMORY|0:125|None
500_5|NODE_FAIL|0:0|None
500_6|RUNNING|0:0|None
500_[7-9%2]|PENDING|0:0|JobArrayTaskLimit
1003|CANCELLED by 0|0:0|None
1004_1|FAILED|1:0|None
501_[2,4]|PENDING|0:0|Dependency
501_3|CANCELLED|0:0|Dependency
`

var sacctSubs = map[string]Submission{
	"500": {Stage: "work", JobID: "500", Offset: 0, Indices: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
	"501": {Stage: "work", JobID: "501", Offset: 10, Indices: []int{10, 12, 13, 14}},
}

func TestParseSacct(t *testing.T) {
	got, err := parseSacct(sacctOutput, sacctSubs)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]account{
		0:  {"COMPLETED", "0:0", "None"},
		1:  {"FAILED", "3:0", "None"},
		2:  {"CANCELLED", "0:15", "None"},
		3:  {"TIMEOUT", "0:0", "None"},
		4:  {"OUT_OF_MEMORY", "0:125", "None"},
		5:  {"NODE_FAIL", "0:0", "None"},
		6:  {"RUNNING", "0:0", "None"},
		7:  {"PENDING", "0:0", "JobArrayTaskLimit"},
		8:  {"PENDING", "0:0", "JobArrayTaskLimit"},
		9:  {"PENDING", "0:0", "JobArrayTaskLimit"},
		12: {"PENDING", "0:0", "Dependency"},
		13: {"CANCELLED", "0:0", "Dependency"},
		14: {"PENDING", "0:0", "Dependency"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseSacct:\n got %v\nwant %v", got, want)
	}
}

func TestParseSacctErrors(t *testing.T) {
	for _, line := range []string{
		"500_x|FAILED|1:0|None",
		"500_-1|FAILED|1:0|None",
		"500_[4-9|PENDING|0:0|None",
		"500_[9-4]|PENDING|0:0|None",
		"500_[4-]|PENDING|0:0|None",
		"500_[0-99999999]|PENDING|0:0|None",
		"500_1|FAILED|1:0",
		"500_1 FAILED 1:0 None",
	} {
		if got, err := parseSacct(line, sacctSubs); err == nil {
			t.Errorf("parseSacct(%q) = %v, want an error", line, got)
		}
	}
}

// fakeSlurm puts executables named after Slurm's commands on PATH, each running a shell
// script. It skips the test on Windows, which runs no #! scripts.
func fakeSlurm(t *testing.T, scripts map[string]string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake Slurm commands are #!/bin/sh scripts, which Windows does not run")
	}
	bin := t.TempDir()
	for name, script := range scripts {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// sacctStudy is a study of 15 jobs of one stage, with the two arrays of sacctOutput
// submitted.
func sacctStudy(t *testing.T) (*Study, []Submission) {
	t.Helper()
	var xs []string
	for x := range 15 {
		xs = append(xs, strings.Repeat("x", x+1))
	}
	s, err := Create(t.TempDir(), &Spec{Name: "acct", Axes: []Axis{{Name: "x", Values: xs}}, Stages: []Stage{{Name: "work", Func: "none"}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().Add(-time.Second)
	subs := []Submission{sacctSubs["500"], sacctSubs["501"]}
	for k := range subs {
		subs[k].Submitted = now
	}
	return s, subs
}

// TestSacctDecisions feeds recorded sacct output to the executor once squeue lists none of
// the tasks: it keeps waiting for the tasks sacct reports pending, running, not yet recorded
// or completed without a record (yet), and notes the others lost with sacct's account.
func TestSacctDecisions(t *testing.T) {
	fakeSlurm(t, map[string]string{
		"sacct":    "cat <<'EOF'\n" + sacctOutput + "EOF",
		"scontrol": "exit 1",
	})
	s, subs := sacctStudy(t)
	ids := []string{"500", "501"}
	sched := map[int]State{}
	acct := s.unsettled(context.Background(), subs, ids, sacctSubs, sched)
	want := map[int]State{0: Running, 6: Running, 7: Queued, 8: Queued, 9: Queued, 10: Queued, 12: Queued, 14: Queued}
	if !reflect.DeepEqual(sched, want) {
		t.Errorf("still waiting for %v, want %v", sched, want)
	}
	(&Slurm{}).noteLost(context.Background(), s, subs, acct)
	notes := map[int]string{
		0:  "(JobState=COMPLETED ExitCode=0:0)", // after the wait: the record never came
		1:  "(JobState=FAILED ExitCode=3:0)",
		2:  "(JobState=CANCELLED ExitCode=0:15)",
		3:  "(JobState=TIMEOUT ExitCode=0:0)",
		4:  "(JobState=OUT_OF_MEMORY ExitCode=0:125)",
		5:  "(JobState=NODE_FAIL ExitCode=0:0)",
		13: "(JobState=CANCELLED ExitCode=0:0 Reason=Dependency)",
		6:  "(state unknown: no longer in the queue; sacct still reports JobState=RUNNING ExitCode=0:0)",
		10: "(state unknown: no longer in the queue)",
	}
	for i, want := range notes {
		f := s.Failure(i)
		if f == nil || !strings.Contains(f.Error, want) {
			t.Errorf("job %d: failure note %+v, want one with %q", i, f, want)
		}
	}
}

// TestSacctDecisionsWithoutAccounting: where sacct fails (accounting off), squeue's word is
// final and nothing is waited for.
func TestSacctDecisionsWithoutAccounting(t *testing.T) {
	fakeSlurm(t, map[string]string{"sacct": "echo 'Slurm accounting storage is disabled' >&2; exit 1"})
	s, subs := sacctStudy(t)
	sched := map[int]State{}
	if acct := s.unsettled(context.Background(), subs, []string{"500", "501"}, sacctSubs, sched); acct != nil || len(sched) > 0 {
		t.Errorf("without accounting: accounts %v, waiting for %v; want neither", acct, sched)
	}
}

// TestWaitFollowsSacct runs the executor's wait with a squeue that lists nothing and a sacct
// whose answers change as the tasks would: it keeps polling while sacct reports job 0 running
// and job 1 completed without its record yet, shows job 0 as running in the progress, and
// returns once job 0 has failed and job 1's record is there.
func TestWaitFollowsSacct(t *testing.T) {
	states := filepath.Join(t.TempDir(), "sacct")
	fakeSlurm(t, map[string]string{"squeue": "exit 0", "sacct": "cat " + states})
	write := func(text string) { // whole, as sacct reads it at any moment
		if err := os.WriteFile(states+".tmp", []byte(text), 0o644); err != nil {
			t.Error(err)
		}
		if err := os.Rename(states+".tmp", states); err != nil {
			t.Error(err)
		}
	}
	write("700_[0-1]|PENDING|0:0|None\n")
	s, _ := sacctStudy(t)
	sub := Submission{Stage: "work", JobID: "700", Indices: []int{0, 1}, Submitted: time.Now().Add(-time.Second)}
	var progress []string
	e := &Slurm{Poll: 20 * time.Millisecond, Progress: func(st *Status) { progress = append(progress, st.Line()) }}
	written := make(chan struct{})
	defer func() { <-written }()
	go func() {
		defer close(written)
		time.Sleep(200 * time.Millisecond)
		write("700_0|RUNNING|0:0|None\n700_1|COMPLETED|0:0|None\n")
		time.Sleep(200 * time.Millisecond)
		write("700_0|FAILED|2:0|None\n700_1|COMPLETED|0:0|None\n")
		time.Sleep(200 * time.Millisecond)
		os.MkdirAll(s.recordDir(1), 0o755)
		data, err := encodeRecord(Record{Index: 1, Stage: "work", Key: s.Jobs[1].Key, Seed: JobSeed("acct", "work", s.Jobs[1].Key)})
		if err != nil {
			t.Error(err)
		}
		os.WriteFile(filepath.Join(s.recordDir(1), "record.json"), data, 0o644)
	}()
	start := time.Now()
	acct, err := e.wait(context.Background(), s, []Submission{sub})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 600*time.Millisecond || !s.Done(1) {
		t.Errorf("wait returned after %v with job 1 done = %v; want it to wait for the record (600 ms)", d, s.Done(1))
	}
	if a := acct[0]; a.State != "FAILED" || a.Exit != "2:0" {
		t.Errorf("job 0's account %v, want FAILED 2:0", a)
	}
	if !slices.ContainsFunc(progress, func(l string) bool { return strings.Contains(l, "1 running") }) {
		t.Errorf("the progress never showed the job sacct reports running: %q", progress)
	}
}

// TestWaitSettles: where sacct keeps reporting a task running that squeue does not list, the
// wait ends after sacctSettle without a change, and the job is noted lost with sacct's word.
func TestWaitSettles(t *testing.T) {
	fakeSlurm(t, map[string]string{"squeue": "exit 0", "sacct": "echo '700_0|RUNNING|0:0|None'", "scontrol": "exit 1"})
	defer func(d time.Duration) { sacctSettle = d }(sacctSettle)
	sacctSettle = 300 * time.Millisecond
	s, _ := sacctStudy(t)
	subs := []Submission{{Stage: "work", JobID: "700", Indices: []int{0}, Submitted: time.Now().Add(-time.Second)}}
	e := &Slurm{Poll: 20 * time.Millisecond}
	// wait must hold on for the settle time, then give up on its own: a wait that never
	// settled would run into the context's deadline, which is a failure, not a bound on speed.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	acct, err := e.wait(ctx, s, subs)
	if err != nil {
		t.Fatalf("wait did not settle on its own: %v", err)
	}
	if d := time.Since(start); d < sacctSettle {
		t.Errorf("wait returned after %v, before the settle time %v", d, sacctSettle)
	}
	e.noteLost(context.Background(), s, subs, acct)
	if f := s.Failure(0); f == nil || !strings.Contains(f.Error, "sacct still reports JobState=RUNNING") {
		t.Errorf("failure note %+v", f)
	}
}

func TestOutputPattern(t *testing.T) {
	root := t.TempDir()
	for dir, want := range map[string]string{
		"study":      "study/slurm/logs/train-%A_%a.slurm",
		"100%/a%j%%": "100%%/a%%j%%%%/slurm/logs/train-%A_%a.slurm",
	} {
		dir, want = filepath.Join(root, dir), strings.ReplaceAll(root, "%", "%%")+"/"+want
		if got := outputPattern(dir, "train"); got != want {
			t.Errorf("outputPattern(%q) = %q, want %q", dir, got, want)
		}
	}
}
