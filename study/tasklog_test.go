package study_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/study"
)

// The bounds of a Slurm task's log, as those of a job's log: 1 MiB of head, 4 MiB of tail and
// the line between them.
const taskLogMax = 1<<20 + 4<<20 + 160

// chattyJob writes, to the process's standard output and error rather than to its Job.Log,
// a first line, 6 MiB of filler and a last line: more than a log keeps.
func chattyJob(j *study.Job) error {
	fmt.Fprintln(os.Stdout, "chatty: first line")
	line := strings.Repeat("x", 1023) + "\n"
	for range 6 << 10 {
		os.Stdout.WriteString(line)
	}
	fmt.Fprintln(os.Stderr, "chatty: last line")
	j.Set("y", 1)
	return nil
}

func chattySpec() *study.Spec {
	return &study.Spec{Name: "chatty", Axes: []study.Axis{{Name: "x", Values: study.Ints(1)}}, Stages: []study.Stage{{Name: "talk", Func: "chatty"}}}
}

// checkTaskLog reports whether log holds the chatty job's first and last lines, within the
// bounds, with the line that says how much was dropped.
func checkTaskLog(t *testing.T, log string) {
	t.Helper()
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatalf("the task's log: %v", err)
	}
	if len(data) > taskLogMax {
		t.Errorf("the task's log %s holds %d bytes, more than the %d it may", log, len(data), taskLogMax)
	}
	for _, want := range []string{"chatty: first line\n", "bytes of this attempt's output dropped here", "chatty: last line\n"} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("the task's log %s lacks %q", log, want)
		}
	}
	if !bytes.HasPrefix(data, []byte("chatty: first line\n")) || !bytes.HasSuffix(data, []byte("chatty: last line\n")) {
		t.Errorf("the task's log %s does not keep its head and tail: %q … %q", log, data[:min(len(data), 40)], data[max(0, len(data)-40):])
	}
}

// TestWorkerCapsTaskLog: the worker of a Slurm array task wrote what a job prints to the
// process's own output straight into the file Slurm gave it, without bound. Where
// GOSBI_STUDY_TASK_LOG names a file (the batch script sets it), the worker's output goes there
// through the cap of a job's log: a job writing over 6 MiB leaves its head, its tail and the
// line counting what was dropped, and nothing of it in Slurm's own file.
func TestWorkerCapsTaskLog(t *testing.T) {
	dir := t.TempDir()
	s, err := study.Create(dir, chattySpec(), "")
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "task.log")
	var slurmOut bytes.Buffer
	cmd := exec.Command(exe, dir, "0")
	cmd.Env = append(os.Environ(), workerEnv+"=1", "GOSBI_STUDY_TASK_LOG="+log)
	cmd.Stdout, cmd.Stderr = &slurmOut, &slurmOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("worker: %v\n%.2000s", err, slurmOut.String())
	}
	if !s.Done(0) {
		t.Errorf("the job has no record:\n%s", s.Status())
	}
	checkTaskLog(t, log)
	if slurmOut.Len() > 0 {
		t.Errorf("the worker wrote %d bytes to Slurm's file, want none: %.200q", slurmOut.Len(), slurmOut.String())
	}
}

// TestSlurmCapsTaskLog: through Slurm, the per-task log of a job that prints over 6 MiB
// (DIR/slurm/logs/STAGE-JOB_TASK.log) keeps its head and tail within the bounds of a job's
// log, and Slurm's own file of the task (.slurm) holds none of it.
func TestSlurmCapsTaskLog(t *testing.T) {
	requireSlurm(t)
	dir := t.TempDir()
	s, err := study.Create(dir, chattySpec(), "")
	if err != nil {
		t.Fatal(err)
	}
	e := slurmExecutor(t)
	if err := s.Run(context.Background(), e); err != nil {
		t.Fatalf("%v\n%s", err, s.Status())
	}
	id := e.Submissions()[0].JobID
	checkTaskLog(t, filepath.Join(dir, "slurm", "logs", "talk-"+id+"_0.log"))
	if fi, err := os.Stat(filepath.Join(dir, "slurm", "logs", "talk-"+id+"_0.slurm")); err != nil || fi.Size() > 4096 {
		t.Errorf("Slurm's own file of the task: %v, want one of at most 4 KiB", err)
	}
}

// TestWorkerTaskLogKeepsExitCode: the worker that writes a task's output to its log runs the
// job in a process of its own; where that process exits with code 3 (the job ended the
// process), the worker exits with 3 as well, so that Slurm's accounting tells how the job
// ended, and says on Slurm's file where its output went.
func TestWorkerTaskLogKeepsExitCode(t *testing.T) {
	dir := t.TempDir()
	if _, err := study.Create(dir, workSpec(map[string]string{"exitx": "1"}), ""); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "task.log")
	var slurmOut bytes.Buffer
	cmd := exec.Command(exe, dir, "0")
	cmd.Env = append(os.Environ(), workerEnv+"=1", "GOSBI_STUDY_TASK_LOG="+log)
	cmd.Stdout, cmd.Stderr = &slurmOut, &slurmOut
	err = cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 3 {
		t.Errorf("worker: %v, exit code %d, want 3\n%s", err, code, slurmOut.String())
	}
	if !strings.Contains(slurmOut.String(), "its output: "+log) {
		t.Errorf("Slurm's file of the task: %q, want it to name the task's log %s", slurmOut.String(), log)
	}
}
