package study_test

import (
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
// (for x = the value of "slowx") and fails when x equals "failx".
func workJob(j *study.Job) error {
	calls["work"].Add(1)
	x := j.Float("x")
	if j.Params["failx"] == j.Params["x"] {
		j.Logf("x = %v cannot be squared today", x)
		return errors.New("work failed on purpose")
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
	deadline := time.Now().Add(2 * time.Minute)
	for !s.Done(0) || !s.Done(1) || !s.Done(3) || !running(s, 2) {
		if time.Now().After(deadline) {
			t.Fatalf("job 2 never ran next to three finished ones: %s", s.Status().Line())
		}
		time.Sleep(100 * time.Millisecond)
	}
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

// running reports whether job i has a running marker.
func running(s *study.Study, i int) bool {
	_, err := os.Stat(filepath.Join(s.Dir, "running", fmt.Sprintf("%05d.json", i)))
	return err == nil
}

// TestSlurmFailureReported: a job that fails is retried, then reported with its log; the
// dependent aggregate is cancelled, not run.
func TestSlurmFailureReported(t *testing.T) {
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
	deadline := time.Now().Add(2 * time.Minute)
	for !running(s, 0) {
		if time.Now().After(deadline) {
			t.Fatalf("job 0 never started: %s", s.Status().Line())
		}
		time.Sleep(100 * time.Millisecond)
	}
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
