package study

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// envTaskLog names the file that the worker of a Slurm array task writes its output to,
// bounded as a job's log is (see WorkerMain); the Slurm executor's batch script sets it.
const envTaskLog = "GOSBI_STUDY_TASK_LOG"

// taskLogDelay bounds how long the worker waits, once the process it runs has ended, for a
// process it left behind to close the output it shares.
const taskLogDelay = 10 * time.Second

// capTask runs this program again, with its arguments and without envTaskLog, its standard
// output and error going into the log file path through the bounds of a job's log (head and
// tail, see maxLogHead). It forwards SIGINT and SIGTERM to it and outlives it, so that what it
// wrote last (a panic's trace) stays in the log. Where the process fails, capTask says so on
// its standard error (Slurm's own file of the task) and ends this process as that one ended
// (its exit code or signal), so that Slurm's accounting reports how the job ended.
func capTask(path string) error {
	l, err := openCappedLog(path, maxLogHead, maxLogTail)
	if err != nil {
		return fmt.Errorf("worker: opening the task's log: %w", err)
	}
	exe, err := os.Executable()
	if err != nil {
		l.Close()
		return fmt.Errorf("worker: finding this program to run the job: %w", err)
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Env = withoutEnv(os.Environ(), envTaskLog)
	cmd.Stdout, cmd.Stderr = l, l
	cmd.WaitDelay = taskLogDelay
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	if err := cmd.Start(); err != nil {
		l.Close()
		return fmt.Errorf("worker: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case sg := <-sig: // scancel or the time limit: the worker leaves a note
			cmd.Process.Signal(sg)
		case err := <-done:
			cerr := l.Close()
			if err != nil {
				fmt.Fprintf(os.Stderr, "worker: %v (its output: %s)\n", err, path)
				exitAs(cmd.ProcessState)
				return fmt.Errorf("worker: %w (its output: %s)", err, path)
			}
			if cerr != nil {
				return fmt.Errorf("worker: the task's log %s: %w", path, cerr)
			}
			return nil
		}
	}
}

// exitAs ends this process as the process of ps ended, so that Slurm's accounting reports the
// worker's own exit code or signal: with its exit code, or killed by its signal. It returns
// where ps is nil (the process did not run) or the signal does not end this process.
func exitAs(ps *os.ProcessState) {
	if ps == nil {
		return
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		signal.Reset(ws.Signal())
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			p.Signal(ws.Signal())
			time.Sleep(time.Second) // the signal is delivered asynchronously
		}
		return
	}
	if code := ps.ExitCode(); code > 0 {
		os.Exit(code)
	}
}

// withoutEnv returns env without the variable name.
func withoutEnv(env []string, name string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
