package study_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gosbi/gosbi/study"
)

// TestSpecTooLarge: a grid of 10¹² jobs is refused by validation with its size, and without
// allocating for its jobs; a grid of exactly MaxJobs passes.
func TestSpecTooLarge(t *testing.T) {
	values := make([]string, 1000)
	for i := range values {
		values[i] = fmt.Sprint(i)
	}
	spec := &study.Spec{Name: "huge", Stages: []study.Stage{{Name: "train", Func: "work"}, {Name: "sum", All: true, Func: "sum"}}}
	for _, a := range []string{"a", "b", "c", "d"} {
		spec.Axes = append(spec.Axes, study.Axis{Name: a, Values: values})
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := spec.Validate()
	runtime.ReadMemStats(&after)
	want := "the grid has 1000000000001 jobs (train 1000×1000×1000×1000 + sum 1), more than the 1000000 a study may hold"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Validate = %v, want an error containing %q", err, want)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("Validate allocated %d bytes for a grid it refuses", n)
	}
	if _, err := study.Create(t.TempDir(), spec, ""); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Create = %v, want the refusal", err)
	}
	spec.Axes = spec.Axes[:2]
	spec.Stages = spec.Stages[:1] // 1000 × 1000 = MaxJobs
	if err := spec.Validate(); err != nil {
		t.Errorf("a grid of MaxJobs = %d jobs: %v", study.MaxJobs, err)
	}
	spec.Stages = append(spec.Stages, study.Stage{Name: "sum", All: true, Func: "sum"})
	if err := spec.Validate(); err == nil || !strings.Contains(err.Error(), "1000001 jobs") {
		t.Errorf("a grid of MaxJobs + 1 jobs: %v", err)
	}
}

// gate is a registered job that waits until its channel is closed.
var (
	gateOpen  = make(chan struct{})
	gateCalls atomic.Int64
)

func init() {
	study.Register("gate", func(j *study.Job) error {
		gateCalls.Add(1)
		if j.Params["x"] == "1" {
			<-gateOpen
		}
		j.Set("x", j.Float("x"))
		return nil
	})
}

func gateSpec() *study.Spec {
	return &study.Spec{Name: "gated", Axes: []study.Axis{{Name: "x", Values: study.Ints(1, 2, 3)}},
		Stages: []study.Stage{{Name: "work", Func: "gate"}}}
}

// TestRunLock: while one Run holds a study, a second Run of the same directory refuses with
// ErrLocked naming this process, and Status names it; once the first ends, a second Run runs
// nothing again.
func TestRunLock(t *testing.T) {
	study.RequireStudyRuns(t)
	dir := t.TempDir()
	s, err := study.Create(dir, gateSpec(), "")
	if err != nil {
		t.Fatal(err)
	}
	gateCalls.Store(0)
	gateOpen = make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), &study.Local{Workers: 1}) }()
	waitUntil(t, s, "job 0 started", func() bool { return gateCalls.Load() == 1 })
	other, err := study.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	second := make(chan error, 1)
	go func() { second <- other.Run(context.Background(), &study.Local{Workers: 1}) }()
	host, _ := os.Hostname()
	holder := fmt.Sprintf("pid %d on host %s, running since", os.Getpid(), host)
	select {
	case err := <-second:
		if !errors.Is(err, study.ErrLocked) || !strings.Contains(err.Error(), holder) || !strings.Contains(err.Error(), "--wait") {
			t.Errorf("second Run = %v, want ErrLocked naming %q", err, holder)
		}
	case <-time.After(30 * time.Second): // it runs the jobs, and waits at the gate too
		t.Errorf("a second Run of the study did not refuse within 30 s: it runs the jobs again")
		defer func() { <-second }()
	}
	if r := other.Status().Runner; !strings.Contains(r, holder) {
		t.Errorf("Status.Runner = %q, want %q", r, holder)
	}
	close(gateOpen)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := gateCalls.Load(); n != 3 {
		t.Errorf("%d jobs ran, want 3", n)
	}
	if r := other.Status().Runner; r != "" {
		t.Errorf("Status.Runner = %q after the run", r)
	}
	if err := other.Run(context.Background(), nil); err != nil || gateCalls.Load() != 3 {
		t.Errorf("a run after the first: %v, %d jobs ran in all", err, gateCalls.Load())
	}
}

// TestStopLeavesPending: a run stopped while its first job runs starts no other job and leaves
// no failure note on the jobs it did not start.
func TestStopLeavesPending(t *testing.T) {
	study.RequireStudyRuns(t)
	s, err := study.Create(t.TempDir(), gateSpec(), "")
	if err != nil {
		t.Fatal(err)
	}
	gateCalls.Store(0)
	gateOpen = make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, &study.Local{Workers: 1}) }()
	waitUntil(t, s, "job 0 started", func() bool { return gateCalls.Load() == 1 })
	cancel()
	time.Sleep(50 * time.Millisecond)
	close(gateOpen)
	if err := <-done; err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Errorf("stopped Run = %v", err)
	}
	if n := gateCalls.Load(); n != 1 {
		t.Errorf("%d jobs ran after the stop, want only the one running", n)
	}
	for _, i := range []int{1, 2} {
		if f := s.Failure(i); f != nil || s.Done(i) {
			t.Errorf("job %d, never started: failure %+v, done %v; want it pending", i, f, s.Done(i))
		}
	}
	if st := s.Status(); st.Count(study.Missing) != 2 || st.Count(study.Failed) != 0 {
		t.Errorf("status %s", st.Line())
	}
}

// TestInvalidRecord: a record.json that is truncated, or whose metric has a changed digit, or
// that has no checksum, is not done: Status says why, and the next run runs that job alone
// again and leaves a valid record.
func TestInvalidRecord(t *testing.T) {
	study.RequireStudyRuns(t)
	for _, tc := range []struct {
		name   string
		damage func([]byte) []byte
		reason string
	}{
		{"truncated", func(b []byte) []byte { return b[:len(b)/2] }, "record.json does not parse (truncated or corrupt)"},
		{"changed digit", func(b []byte) []byte { return []byte(strings.Replace(string(b), `"y": 4.`, `"y": 5.`, 1)) }, "record.json does not match its checksum"},
		{"no checksum", func(b []byte) []byte { return []byte(strings.Replace(string(b), `"checksum"`, `"sum"`, 1)) }, "record.json has no checksum"},
		{"empty", func([]byte) []byte { return nil }, "record.json does not parse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := study.Create(t.TempDir(), workSpec(nil), "")
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Run(context.Background(), &study.Local{Workers: 1}); err != nil {
				t.Fatal(err)
			}
			first := metrics(t, s)
			path := filepath.Join(s.Dir, "jobs", "work", "00001", "record.json")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			damaged := tc.damage(data)
			if string(damaged) == string(data) {
				t.Fatalf("the damage changed nothing in %s", data)
			}
			os.WriteFile(path, damaged, 0o644)
			reopened, _ := study.Open(s.Dir) // a fresh process's view
			if reopened.Done(1) {
				t.Fatalf("a %s record counts as done", tc.name)
			}
			st := reopened.Status()
			if st.Count(study.Invalid) != 1 || len(st.Invalid) != 1 || st.Invalid[0].Job.Index != 1 || !strings.Contains(st.Invalid[0].Reason, tc.reason) {
				t.Errorf("status %s, invalid %+v; want job 1 invalid: %s", st.Line(), st.Invalid, tc.reason)
			}
			if text := st.String(); !strings.Contains(text, "INVALID record of job 1 (work x=2): "+tc.reason) {
				t.Errorf("status text lacks the reason:\n%s", text)
			}
			if _, err := reopened.Record(1); err == nil || !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("Record(1) = %v, want %q", err, tc.reason)
			}
			resetCalls()
			if err := reopened.Run(context.Background(), &study.Local{Workers: 1}); err != nil {
				t.Fatal(err)
			}
			if got := counts(); !reflect.DeepEqual(got, map[string]int64{"work": 1, "sum": 0}) && !reflect.DeepEqual(got, map[string]int64{"work": 1}) {
				t.Errorf("the second run ran %v, want job 1 alone", got)
			}
			if again := metrics(t, reopened); !reflect.DeepEqual(again, first) {
				t.Errorf("records after the re-run %v, want %v", again, first)
			}
			if st := reopened.Status(); !st.Complete() || len(st.Invalid) != 0 {
				t.Errorf("after the re-run: %s", st)
			}
			left, _ := filepath.Glob(filepath.Join(s.Dir, "jobs", "work", ".tmp-*"))
			if len(left) != 0 {
				t.Errorf("left %v", left)
			}
		})
	}
}
