package study_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
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
	study.RequireStudyRuns(t)
	dir := t.TempDir()
	s, err := study.Create(dir, chattySpec(), "")
	if err != nil {
		t.Fatal(err)
	}
	code, slurmOut := runTaskWorker(t, dir)
	if code != 0 {
		t.Fatalf("worker: exit code %d\n%.2000s", code, slurmOut)
	}
	if !s.Done(0) {
		t.Errorf("the job has no record:\n%s", s.Status())
	}
	checkTaskLog(t, filepath.Join(dir, "task.log"))
	if len(slurmOut) > 0 {
		t.Errorf("the worker wrote %d bytes to Slurm's file, want none: %.200q", len(slurmOut), slurmOut)
	}
}

// TestSlurmCapsTaskLog: through Slurm, the per-task log of a job that prints over 6 MiB
// (DIR/slurm/logs/STAGE-JOB_TASK.log) keeps its head and tail within the bounds of a job's
// log, and Slurm's own file of the task (.slurm) holds none of it.
func TestSlurmCapsTaskLog(t *testing.T) {
	study.RequireStudyRuns(t)
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
	study.RequireStudyRuns(t)
	dir := t.TempDir()
	if _, err := study.Create(dir, workSpec(map[string]string{"exitx": "1"}), ""); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "task.log")
	code, slurmOut := runTaskWorker(t, dir)
	if code != 3 {
		t.Errorf("worker: exit code %d, want 3\n%s", code, slurmOut)
	}
	if !strings.Contains(slurmOut, "its output: "+log) {
		t.Errorf("Slurm's file of the task: %q, want it to name the task's log %s", slurmOut, log)
	}
}

// leaverJob starts a process that outlives the job, holding the job's process's standard
// output, writes its pid to the file the parameter pid names, and succeeds.
func leaverJob(j *study.Job) error {
	cmd := exec.Command("sleep", "600")
	cmd.Stdout = os.Stdout
	if err := cmd.Start(); err != nil {
		return err
	}
	if err := os.WriteFile(j.Params["pid"], []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
		return err
	}
	j.Set("y", 1)
	return nil
}

// crasherJob ends its process with SIGABRT, as a crash does where GOTRACEBACK=crash (a fatal
// error in C code aborts as well), with no core file.
func crasherJob(j *study.Job) error {
	noCoreFiles()
	debug.SetTraceback("crash")
	go func() { panic("crasher: on purpose") }()
	select {}
}

// runTaskWorker runs the test binary as the worker of job 0 of the study in dir, its output
// going to the task's log dir/task.log, and returns its exit code and what it wrote on
// Slurm's file.
func runTaskWorker(t *testing.T, dir string) (int, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var slurmOut bytes.Buffer
	cmd := exec.Command(exe, dir, "0")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), workerEnv+"=1", "GOSBI_STUDY_TASK_LOG="+filepath.Join(dir, "task.log"), taskLogDelayEnv+"=100ms")
	cmd.Stdout, cmd.Stderr = &slurmOut, &slurmOut
	cmd.Run()
	return cmd.ProcessState.ExitCode(), slurmOut.String()
}

// TestWorkerTaskLogHeldOpen: a job that succeeded but left a process behind holding its
// output made the worker's wait for that output end in an error (exec.ErrWaitDelay), which
// the worker said twice and ended with exit code 1: Slurm counted FAILED a job that had
// succeeded. The worker now exits 0 and notes on Slurm's file that the task's log may lack
// what that process wrote.
func TestWorkerTaskLogHeldOpen(t *testing.T) {
	study.RequireStudyRuns(t)
	dir := t.TempDir()
	pid := filepath.Join(dir, "pid")
	s, err := study.Create(dir, &study.Spec{Name: "leaver", Axes: []study.Axis{{Name: "x", Values: study.Ints(1)}},
		Stages: []study.Stage{{Name: "leave", Func: "leaver"}}, Params: map[string]string{"pid": pid}}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { killPIDFile(t, pid) })
	code, out := runTaskWorker(t, dir)
	if code != 0 {
		t.Errorf("worker: exit code %d, want 0 (the job succeeded)\n%s", code, out)
	}
	if !s.Done(0) {
		t.Errorf("the job has no record:\n%s", s.Status())
	}
	if want := "the job's process ended well, but a process it left behind"; !strings.Contains(out, want) || strings.Count(out, "\n") != 1 {
		t.Errorf("Slurm's file of the task: %q, want one line with %q", out, want)
	}
}

// TestWorkerTaskLogSignal: where the job's process was killed by a signal that the Go runtime
// handles itself (SIGABRT: it would dump its goroutines and exit with code 2), the worker
// raised it on itself anyway and so ended with code 2; it now exits with 128+6, as a shell
// reports such an end, and says once on Slurm's file how the job's process ended.
func TestWorkerTaskLogSignal(t *testing.T) {
	study.RequireStudyRuns(t)
	dir := t.TempDir()
	if _, err := study.Create(dir, &study.Spec{Name: "crasher", Axes: []study.Axis{{Name: "x", Values: study.Ints(1)}},
		Stages: []study.Stage{{Name: "crash", Func: "crasher"}}}, ""); err != nil {
		t.Fatal(err)
	}
	code, out := runTaskWorker(t, dir)
	if code != 128+int(syscall.SIGABRT) {
		t.Errorf("worker: exit code %d, want %d\n%.2000s", code, 128+int(syscall.SIGABRT), out)
	}
	if n := strings.Count(out, "signal: aborted"); n != 1 || strings.Contains(out, "goroutine ") {
		t.Errorf("Slurm's file of the task: %.2000q, want it to say once that the job's process was aborted, without a stack dump", out)
	}
}

// killPIDFile ends the process whose id the file pid holds, if it is there.
func killPIDFile(t *testing.T, pid string) {
	data, err := os.ReadFile(pid)
	if err != nil {
		return
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Errorf("pid file: %v", err)
		return
	}
	if p, err := os.FindProcess(n); err == nil {
		p.Kill()
	}
}
