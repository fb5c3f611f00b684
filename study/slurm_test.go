package study_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gosbi/gosbi/study"
)

var (
	slurmOnce sync.Once
	slurmErr  error
)

// requireSlurm skips a test when no Slurm cluster answers, unless CI is set: CI installs one
// (scripts/slurm.sh), so there a missing Slurm is a failure.
func requireSlurm(t *testing.T) {
	t.Helper()
	slurmOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, "sinfo", "-h", "-o", "%t").Output()
		state := strings.TrimSpace(string(out))
		if err == nil && (strings.Contains(state, "idle") || strings.Contains(state, "mix") || strings.Contains(state, "alloc")) {
			return
		}
		slurmErr = fmt.Errorf("no Slurm cluster answers (sinfo: %q, %v); start one with `bash scripts/slurm.sh` (as root)", state, err)
	})
	if slurmErr == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%v; CI=true requires it", slurmErr)
	}
	t.Skip(slurmErr)
}

// requireAccounting skips a test when the Slurm cluster keeps no job accounting (sacct
// fails), unless CI is set: scripts/slurm.sh starts slurmdbd, so there it is a failure.
func requireAccounting(t *testing.T) {
	t.Helper()
	requireSlurm(t)
	out, err := exec.Command("sacct", "-n", "-X", "-j", "1").CombinedOutput()
	if err == nil {
		return
	}
	err = fmt.Errorf("Slurm keeps no job accounting (sacct: %v: %s); `bash scripts/slurm.sh` starts slurmdbd", err, bytes.TrimSpace(out))
	if os.Getenv("CI") == "true" {
		t.Fatalf("%v; CI=true requires it", err)
	}
	t.Skip(err)
}

// slurmExecutor runs this test binary as the worker of the array tasks.
func slurmExecutor(t *testing.T) *study.Slurm {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := &study.Slurm{Command: []string{exe}, Env: []string{workerEnv + "=1"}, Poll: 300 * time.Millisecond}
	t.Cleanup(func() { // a failed test leaves nothing in the queue
		for _, sub := range e.Submissions() {
			exec.Command("scancel", sub.JobID).Run()
		}
	})
	return e
}

// workJob squares x, plus noise from its seed; it sleeps while the file named by "slow" exists
// (for x = the value of "slowx"), fails when x equals "failx", and ends its process with exit
// code 3, leaving neither record nor failure note, when x equals "exitx".
func workJob(j *study.Job) error {
	calls["work"].Add(1)
	x := j.Float("x")
	if j.Params["failx"] == j.Params["x"] {
		j.Logf("x = %v cannot be squared today", x)
		return errors.New("work failed on purpose")
	}
	if j.Params["exitx"] == j.Params["x"] {
		os.Exit(3)
	}
	if j.Params["slowx"] == j.Params["x"] {
		for {
			if _, err := os.Stat(j.Params["slow"]); err != nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	j.Set("y", x*x+rand.New(rand.NewPCG(j.Seed, 0)).Float64())
	return nil
}

func sumJob(j *study.Job) error {
	calls["sum"].Add(1)
	rs, err := j.Inputs("work")
	if err != nil {
		return err
	}
	s := 0.0
	for _, r := range rs {
		s += r.Metrics["y"]
	}
	j.Set("sum", s)
	return nil
}

func workSpec(params map[string]string) *study.Spec {
	return &study.Spec{
		Name:   "work",
		Axes:   []study.Axis{{Name: "x", Values: study.Ints(1, 2, 3, 4)}},
		Stages: []study.Stage{{Name: "work", Func: "work"}, {Name: "sum", All: true, Func: "sum"}},
		Params: params,
	}
}

// TestSlurmMatchesLocal runs the training study through Slurm and locally: the records agree
// to the bit.
func TestSlurmMatchesLocal(t *testing.T) {
	study.RequireStudyRuns(t)
	requireSlurm(t)
	local, err := study.Create(t.TempDir(), trainingSpec(), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := local.Run(context.Background(), &study.Local{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	remote, err := study.Create(t.TempDir(), trainingSpec(), "")
	if err != nil {
		t.Fatal(err)
	}
	e := slurmExecutor(t)
	e.Throttle = 2
	var last string
	e.Progress = func(st *study.Status) { last = st.Line() }
	if err := remote.Run(context.Background(), e); err != nil {
		t.Fatalf("%v\n%s", err, remote.Status())
	}
	if len(e.Submissions()) != 3 {
		t.Errorf("%d submissions, want one array per stage: %+v", len(e.Submissions()), e.Submissions())
	}
	if a, b := metrics(t, local), metrics(t, remote); !reflect.DeepEqual(a, b) {
		t.Errorf("Slurm and local records differ:\nlocal %v\nslurm %v", a, b)
	}
	if !strings.Contains(last, "aggregate 0/1 done") && !strings.Contains(last, "aggregate 1/1 done") {
		t.Errorf("last progress %q", last)
	}
	logs, _ := filepath.Glob(filepath.Join(remote.Dir, "slurm", "logs", "train-*_*.log"))
	if len(logs) != 4 {
		t.Errorf("%d per-task logs of the train array, want 4: %v", len(logs), logs)
	}
}

// TestSlurmCancelAndResume cancels one array task mid-run: the next run submits only that job
// and the aggregate that depended on it, and leaves the finished records alone.
func TestSlurmCancelAndResume(t *testing.T) {
	study.RequireStudyRuns(t)
	requireSlurm(t)
	slow := filepath.Join(t.TempDir(), "slow")
	os.WriteFile(slow, nil, 0o644)
	s, err := study.Create(t.TempDir(), workSpec(map[string]string{"slow": slow, "slowx": "3"}), "")
	if err != nil {
		t.Fatal(err)
	}
	e := slurmExecutor(t)
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), e) }()
	// wait until job 2 (x = 3) runs, then cancel its array task
	waitUntil(t, s, "job 2 ran next to three finished ones", func() bool {
		return s.Done(0) && s.Done(1) && s.Done(3) && running(s, 2)
	})
	task := e.Submissions()[0].JobID + "_2"
	if out, err := exec.Command("scancel", task).CombinedOutput(); err != nil {
		t.Fatalf("scancel %s: %v %s", task, err, out)
	}
	err = <-done
	if err == nil {
		t.Fatal("the run with a cancelled task reported success")
	}
	st := s.Status()
	if st.Count(study.Done) != 3 || len(st.Failed) != 2 || st.Failed[0].Job.Index != 2 || !strings.Contains(st.Failed[0].Failure.Error, "interrupted by signal terminated") ||
		!strings.Contains(st.Failed[1].Failure.Error, "DependencyNeverSatisfied") {
		t.Fatalf("after the cancel: %v\n%s", err, st)
	}
	before := map[int]time.Time{}
	for _, i := range []int{0, 1, 3} {
		r, _ := s.Record(i)
		before[i] = r.Finished
	}
	os.Remove(slow)
	e2 := slurmExecutor(t)
	if err := s.Run(context.Background(), e2); err != nil {
		t.Fatalf("%v\n%s", err, s.Status())
	}
	var got [][]int
	for _, sub := range e2.Submissions() {
		got = append(got, sub.Indices)
	}
	if want := [][]int{{2}, {4}}; !reflect.DeepEqual(got, want) {
		t.Errorf("second run submitted %v, want %v", got, want)
	}
	for i, f := range before {
		r, _ := s.Record(i)
		if !r.Finished.Equal(f) {
			t.Errorf("job %d ran again", i)
		}
	}
	if !s.Status().Complete() {
		t.Errorf("not complete: %s", s.Status())
	}
}

// waitUntil polls cond for two minutes; if it never holds, the test fails saying what did not
// happen and how the study stands.
func waitUntil(t *testing.T, s *study.Study, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); !cond(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not within 2 minutes: %s; the study: %s", what, s.Status().Line())
		}
	}
}

// running reports whether job i has a running marker.
func running(s *study.Study, i int) bool {
	_, err := os.Stat(filepath.Join(s.Dir, "running", fmt.Sprintf("%05d.json", i)))
	return err == nil
}

// TestSlurmFailureReported: a job that fails is retried, then reported with its log; the
// dependent aggregate is cancelled, not run.
func TestSlurmFailureReported(t *testing.T) {
	study.RequireStudyRuns(t)
	requireSlurm(t)
	s, err := study.Create(t.TempDir(), workSpec(map[string]string{"failx": "2"}), "")
	if err != nil {
		t.Fatal(err)
	}
	e := slurmExecutor(t)
	e.Retries = 1
	err = s.Run(context.Background(), e)
	if err == nil || !strings.Contains(err.Error(), "work failed on purpose") {
		t.Fatalf("Run = %v, want the failure", err)
	}
	st := s.Status()
	text := st.String()
	for _, want := range []string{"FAILED job 1 (work x=2), attempt 2", "x = 2 cannot be squared today"} {
		if !strings.Contains(text, want) {
			t.Errorf("status lacks %q:\n%s", want, text)
		}
	}
	if st.Count(study.Done) != 3 || s.Done(4) {
		t.Errorf("status %s", st.Line())
	}
	var got [][]int
	for _, sub := range e.Submissions() {
		got = append(got, sub.Indices)
	}
	if want := [][]int{{0, 1, 2, 3}, {4}, {1}, {4}}; !reflect.DeepEqual(got, want) {
		t.Errorf("submitted %v, want %v", got, want)
	}
}

// TestSlurmInterrupt: cancelling the context cancels the submitted arrays (scancel), so that
// nothing of the study is left in the queue.
func TestSlurmInterrupt(t *testing.T) {
	study.RequireStudyRuns(t)
	requireSlurm(t)
	slow := filepath.Join(t.TempDir(), "slow")
	os.WriteFile(slow, nil, 0o644)
	defer os.Remove(slow)
	s, err := study.Create(t.TempDir(), workSpec(map[string]string{"slow": slow, "slowx": "1"}), "")
	if err != nil {
		t.Fatal(err)
	}
	e := slurmExecutor(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, e) }()
	waitUntil(t, s, "job 0 started", func() bool { return running(s, 0) })
	cancel()
	err = <-done
	if err == nil || !strings.Contains(err.Error(), "interrupted; cancelled Slurm jobs") {
		t.Fatalf("Run after cancel = %v", err)
	}
	ids := []string{}
	for _, sub := range e.Submissions() {
		ids = append(ids, sub.JobID)
	}
	// scancel is asynchronous: the tasks leave the queue within seconds
	deadline := time.Now().Add(2 * time.Minute)
	for {
		out, _ := exec.Command("squeue", "-h", "-j", strings.Join(ids, ","), "-o", "%i %t").Output()
		if strings.TrimSpace(string(out)) == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still queued after the interrupt:\n%s", out)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if s.Done(0) || s.Done(4) {
		t.Errorf("jobs finished although cancelled: %s", s.Status().Line())
	}
}

// TestSlurmSplitArrays: a stage with more jobs than MaxArray goes out as several arrays (the
// array index offset by the first job of each), and the next stage waits for all of them.
func TestSlurmSplitArrays(t *testing.T) {
	study.RequireStudyRuns(t)
	requireSlurm(t)
	spec := workSpec(nil)
	spec.Axes[0].Values = study.Ints(1, 2, 3, 4, 5, 6, 7)
	s, err := study.Create(t.TempDir(), spec, "")
	if err != nil {
		t.Fatal(err)
	}
	submitted := func(e *study.Slurm) (idx [][]int, offsets []int) {
		for _, sub := range e.Submissions() {
			idx, offsets = append(idx, sub.Indices), append(offsets, sub.Offset)
		}
		return idx, offsets
	}
	e := slurmExecutor(t)
	e.MaxArray = 3
	if err := s.Run(context.Background(), e); err != nil {
		t.Fatalf("%v\n%s", err, s.Status())
	}
	idx, off := submitted(e)
	if want := [][]int{{0, 1, 2}, {3, 4, 5}, {6}, {7}}; !reflect.DeepEqual(idx, want) || !reflect.DeepEqual(off, []int{0, 3, 6, 7}) {
		t.Errorf("submitted %v at offsets %v, want %v at 0, 3, 6, 7", idx, off, want)
	}
	sum := func() float64 {
		r, err := s.Record(7)
		if err != nil {
			t.Fatal(err)
		}
		return r.Metrics["sum"]
	}
	first := sum()
	for _, i := range []int{1, 5, 7} {
		r, _ := s.Record(i)
		os.RemoveAll(r.Dir)
	}
	e = slurmExecutor(t)
	e.MaxArray = 3
	if err := s.Run(context.Background(), e); err != nil {
		t.Fatalf("%v\n%s", err, s.Status())
	}
	idx, off = submitted(e)
	if want := [][]int{{1}, {5}, {7}}; !reflect.DeepEqual(idx, want) || !reflect.DeepEqual(off, []int{1, 5, 7}) {
		t.Errorf("second run submitted %v at offsets %v, want %v at 1, 5, 7", idx, off, want)
	}
	if again := sum(); again != first {
		t.Errorf("sum %v, then %v", first, again)
	}
}

// TestSlurmJudgedFromSacct: where squeue lists none of the study's tasks and scontrol knows
// none of them (fakes on PATH, as when the controller has purged them), sacct decides: the
// executor waits while sacct reports the tasks pending or running, counts the jobs that wrote
// records done, and notes the job whose worker exited with code 3 without a word as FAILED
// with that exit code, and the aggregate that depended on it as cancelled.
func TestSlurmJudgedFromSacct(t *testing.T) {
	study.RequireStudyRuns(t)
	requireAccounting(t)
	bin := t.TempDir()
	for name, script := range map[string]string{"squeue": "exit 0", "scontrol": "echo 'Invalid job id specified' >&2; exit 1"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	slow := filepath.Join(t.TempDir(), "slow")
	os.WriteFile(slow, nil, 0o644)
	defer os.Remove(slow)
	s, err := study.Create(t.TempDir(), workSpec(map[string]string{"slow": slow, "slowx": "3", "exitx": "2"}), "")
	if err != nil {
		t.Fatal(err)
	}
	e := slurmExecutor(t)
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), e) }()
	// job 2 holds its array task until slow is removed
	waitUntil(t, s, "job 2 started", func() bool { return running(s, 2) })
	time.Sleep(time.Second)
	os.Remove(slow)
	err = <-done
	if err == nil {
		t.Fatal("the run with a failed job reported success")
	}
	st := s.Status()
	if st.Count(study.Done) != 3 || !s.Done(0) || !s.Done(2) || !s.Done(3) || len(st.Failed) != 2 {
		t.Fatalf("%v\n%s", err, st)
	}
	task := e.Submissions()[0].JobID + "_1"
	for k, want := range []string{"Slurm array task " + task + " ended without a record (JobState=FAILED ExitCode=3:0)", "ended without a record (JobState=CANCELLED ExitCode=0:0"} {
		if !strings.Contains(st.Failed[k].Failure.Error, want) {
			t.Errorf("failure note of job %d: %q, want %q", st.Failed[k].Job.Index, st.Failed[k].Failure.Error, want)
		}
	}
}

// TestSlurmPercentInDir: a study directory whose path holds "%" (which sbatch reads as the
// start of a pattern in --output) gets its per-task logs under its own slurm/logs: Slurm's
// (.slurm) and the worker's (.log).
func TestSlurmPercentInDir(t *testing.T) {
	study.RequireStudyRuns(t)
	requireSlurm(t)
	dir := filepath.Join(t.TempDir(), "100%j-%A")
	s, err := study.Create(dir, workSpec(nil), "")
	if err != nil {
		t.Fatal(err)
	}
	e := slurmExecutor(t)
	if err := s.Run(context.Background(), e); err != nil {
		t.Fatalf("%v\n%s", err, s.Status())
	}
	id := e.Submissions()[0].JobID
	for task := 0; task < 4; task++ {
		for _, ext := range []string{".log", ".slurm"} { // the worker's, Slurm's (--output)
			log := filepath.Join(dir, "slurm", "logs", fmt.Sprintf("work-%s_%d%s", id, task, ext))
			if _, err := os.Stat(log); err != nil {
				t.Errorf("per-task log: %v", err)
			}
		}
	}
}

// TestSlurmWaitsForEarlierRun: the Slurm jobs that a killed run submitted (listed in
// slurm/submitted) are still queued or running; the next run submits nothing until they have
// left the queue, so that no job runs twice.
func TestSlurmWaitsForEarlierRun(t *testing.T) {
	study.RequireStudyRuns(t)
	requireSlurm(t)
	s, err := study.Create(t.TempDir(), workSpec(nil), "")
	if err != nil {
		t.Fatal(err)
	}
	ended := filepath.Join(t.TempDir(), "ended")
	out, err := exec.Command("sbatch", "--parsable", "--output=/dev/null", "--wrap", "sleep 3; touch "+ended).Output()
	if err != nil {
		t.Fatalf("sbatch: %v", err)
	}
	earlier := strings.TrimSpace(string(out))
	t.Cleanup(func() { exec.Command("scancel", earlier).Run() })
	os.MkdirAll(filepath.Join(s.Dir, "slurm"), 0o755)
	if err := os.WriteFile(filepath.Join(s.Dir, "slurm", "submitted"), []byte(earlier+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := slurmExecutor(t)
	if err := s.Run(context.Background(), e); err != nil {
		t.Fatalf("%v\n%s", err, s.Status())
	}
	fi, err := os.Stat(ended)
	if err != nil {
		t.Fatalf("the earlier job had not ended when the run returned: %v", err)
	}
	// Submitted is a second early (file times may be coarser than the clock)
	if first := e.Submissions()[0].Submitted.Add(time.Second); first.Before(fi.ModTime()) {
		t.Errorf("the run submitted at %v, before the earlier job ended at %v", first, fi.ModTime())
	}
	if _, err := os.Stat(filepath.Join(s.Dir, "slurm", "submitted")); !os.IsNotExist(err) {
		t.Errorf("slurm/submitted is left after a complete run: %v", err)
	}
	if !s.Status().Complete() {
		t.Errorf("not complete: %s", s.Status())
	}
}
