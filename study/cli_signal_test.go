//go:build unix

// The tests here signal processes (SIGKILL, SIGTERM) and probe them with kill(2).

package study_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gosbi/gosbi/study"
)

// alive reports whether a process runs (a zombie, which no parent has reaped yet, does not).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(f) == 0 || f[0] != "Z"
}

// TestCLIKilled: `kill -9` of `gosbi study run` takes its running script job with it; the
// next run takes over the lock with a note, removes the job's temporary directory and
// completes the study.
func TestCLIKilled(t *testing.T) {
	study.RequireStudyRuns(t)
	dir := t.TempDir()
	spec, slow, ran := slowStudy(t, dir)
	out := filepath.Join(dir, "out")
	runner, _ := startRun(t, spec, "--dir", out, "--workers", "1")
	child := scriptPID(t, dir, 0)
	if tmps, _ := filepath.Glob(filepath.Join(out, "jobs", "work", ".tmp-00000-*")); len(tmps) != 1 {
		t.Fatalf("job 0 runs without its temporary directory: %v", tmps)
	}
	runner.Process.Signal(syscall.SIGKILL)
	runner.Wait()
	for deadline := time.Now().Add(10 * time.Second); alive(child); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(child, syscall.SIGKILL)
			t.Fatalf("the script job (pid %d) outlived its killed runner by 10 s", child)
		}
	}
	os.Remove(slow)
	text, err := exec.Command(gosbi(t), "study", "run", out).CombinedOutput()
	if err != nil {
		t.Fatalf("the run after the kill: %v\n%s", err, text)
	}
	for _, want := range []string{
		fmt.Sprintf("the previous run (pid %d on host", runner.Process.Pid), "ended without releasing its lock (killed?); taking it over",
		"removed 1 temporary directory of jobs an earlier run left unfinished", "work 3/3 done",
	} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the run after the kill does not say %q:\n%s", want, text)
		}
	}
	if tmps, _ := filepath.Glob(filepath.Join(out, "jobs", "work", ".tmp-*")); len(tmps) != 0 {
		t.Errorf("left %v", tmps)
	}
	if got := runs(t, ran); got["1"] != 2 || got["2"] != 1 || got["3"] != 1 {
		t.Errorf("runs per job %v, want job 0 twice (killed, then again) and the others once", got)
	}
}

// TestCLITerminated: SIGTERM to `gosbi study run` stops the running job, noted as interrupted,
// and leaves the jobs it had not started pending, not failed.
func TestCLITerminated(t *testing.T) {
	study.RequireStudyRuns(t)
	dir := t.TempDir()
	spec, _, ran := slowStudy(t, dir)
	out := filepath.Join(dir, "out")
	runner, runOut := startRun(t, spec, "--dir", out, "--workers", "1")
	child := scriptPID(t, dir, 0)
	runner.Process.Signal(syscall.SIGTERM)
	err := runner.Wait()
	if err == nil || !strings.Contains(runOut.String(), "interrupted") {
		t.Errorf("terminated run: %v\n%s", err, runOut)
	}
	if alive(child) {
		t.Errorf("the script job (pid %d) runs on after SIGTERM", child)
	}
	s, err := study.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	st := s.Status()
	if st.Count(study.Failed) != 1 || st.Count(study.Missing) != 2 || len(st.Failed) != 1 || !strings.Contains(st.Failed[0].Failure.Error, "interrupted: the run was stopped while the job ran") {
		t.Errorf("after SIGTERM: %s", st)
	}
	if got := runs(t, ran); len(got) != 1 {
		t.Errorf("jobs run %v, want only job 0", got)
	}
}
