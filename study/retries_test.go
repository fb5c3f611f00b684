package study_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gosbi/gosbi/study"
)

// TestLocalNegativeRetries: a Local executor with Retries below zero refuses to run, naming the
// field, instead of trying no job at all and reporting the stage complete.
func TestLocalNegativeRetries(t *testing.T) {
	study.RequireStudyRuns(t)
	spec := &study.Spec{Name: "retries", Axes: []study.Axis{{Name: "v", Values: []string{"large"}}},
		Stages: []study.Stage{{Name: "work", Func: "series"}}}
	s, err := study.Create(t.TempDir(), spec, "")
	if err != nil {
		t.Fatal(err)
	}
	seriesCalls.Store(0)
	err = s.Run(context.Background(), &study.Local{Workers: 1, Retries: -1})
	if err == nil || !strings.Contains(err.Error(), "Retries = -1") {
		t.Fatalf("Run with Retries -1: %v, want an error naming Retries = -1", err)
	}
	if n := seriesCalls.Load(); n != 0 {
		t.Errorf("%d jobs ran", n)
	}
	if st := s.Status(); st.Count(study.Missing) != 1 {
		t.Errorf("status %s, want the job missing", st.Line())
	}
	if err := s.Run(context.Background(), &study.Local{Workers: 1}); err != nil {
		t.Fatalf("Run with Retries 0 afterwards: %v", err)
	}
}

// TestSlurmNegativeRetries: a Slurm executor with Retries below zero refuses to run, naming the
// field, before it submits anything (sbatch here is a stand-in that leaves a file when called).
func TestSlurmNegativeRetries(t *testing.T) {
	study.RequireStudyRuns(t)
	bin := t.TempDir()
	called := filepath.Join(t.TempDir(), "sbatch-called")
	for _, name := range []string{"sbatch", "squeue", "scancel", "scontrol", "sacct"} {
		script := "#!/bin/sh\necho " + name + " >> '" + called + "'\nexit 1\n"
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	spec := &study.Spec{Name: "retries", Axes: []study.Axis{{Name: "v", Values: []string{"large"}}},
		Stages: []study.Stage{{Name: "work", Func: "series"}}}
	s, err := study.Create(t.TempDir(), spec, "")
	if err != nil {
		t.Fatal(err)
	}
	err = s.Run(context.Background(), &study.Slurm{Retries: -1, Poll: time.Millisecond, MaxArray: 10})
	if err == nil || !strings.Contains(err.Error(), "Slurm.Retries = -1, expected 0 or more") {
		t.Fatalf("Run with Retries -1: %v, want an error naming Slurm.Retries = -1", err)
	}
	if data, err := os.ReadFile(called); err == nil {
		t.Errorf("Slurm commands ran: %s", data)
	}
	if st := s.Status(); st.Count(study.Missing) != 1 {
		t.Errorf("status %s, want the job missing", st.Line())
	}
}

// TestNegativeExecutorSettings: a negative Local.Workers, Slurm.CPUsPerTask or Slurm.Throttle
// is refused with an error naming the field, before any job runs or anything is submitted,
// instead of silently meaning the default (the CLI refuses the same flags).
func TestNegativeExecutorSettings(t *testing.T) {
	study.RequireStudyRuns(t)
	bin := t.TempDir()
	called := filepath.Join(t.TempDir(), "slurm-called")
	for _, name := range []string{"sbatch", "squeue", "scancel", "scontrol", "sacct"} {
		script := "#!/bin/sh\necho " + name + " >> '" + called + "'\nexit 1\n"
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	for _, tc := range []struct {
		name string
		ex   study.Executor
		want string
	}{
		{"local workers", &study.Local{Workers: -2}, "Local.Workers = -2"},
		{"slurm cpus", &study.Slurm{CPUsPerTask: -1, Poll: time.Millisecond, MaxArray: 10}, "Slurm.CPUsPerTask = -1"},
		{"slurm throttle", &study.Slurm{Throttle: -3, Poll: time.Millisecond, MaxArray: 10}, "Slurm.Throttle = -3"},
	} {
		spec := &study.Spec{Name: "negative", Axes: []study.Axis{{Name: "v", Values: []string{"large"}}},
			Stages: []study.Stage{{Name: "work", Func: "series"}}}
		s, err := study.Create(t.TempDir(), spec, "")
		if err != nil {
			t.Fatal(err)
		}
		seriesCalls.Store(0)
		err = s.Run(context.Background(), tc.ex)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %s", tc.name, err, tc.want)
		}
		if n := seriesCalls.Load(); n != 0 {
			t.Errorf("%s: %d jobs ran", tc.name, n)
		}
		if data, err := os.ReadFile(called); err == nil {
			t.Errorf("%s: Slurm commands ran: %s", tc.name, data)
		}
	}
}
