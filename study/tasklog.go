package study

import (
	"errors"
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
// process it left behind to close the output it shares (a variable for the tests).
var taskLogDelay = 10 * time.Second

// capTask runs this program again, with its arguments and without envTaskLog, its standard
// output and error going into the log file path through the bounds of a job's log (head and
// tail, see maxLogHead). It forwards SIGINT and SIGTERM to it and outlives it, so that what it
// wrote last (a panic's trace) stays in the log. Where the process fails, capTask says so on
// its standard error (Slurm's own file of the task) and ends this process as that one ended
// (see exitAs), so that Slurm's accounting reports how the job ended. Where the process ended
// well but its output could not all go to the log (a process it left behind held the output
// open past taskLogDelay, or the log could not be written), capTask notes that on its
// standard error and returns nil: the job succeeded.
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
			return taskEnded(cmd.ProcessState, err, l.Close(), path)
		}
	}
}

// taskEnded says how the job's process of capTask ended (ps, as Wait left it, with Wait's
// error) and what closing its log returned, and ends this process as that one ended where it
// failed.
func taskEnded(ps *os.ProcessState, err, cerr error, path string) error {
	if ps != nil && ps.Success() {
		if err == nil {
			err = cerr
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "worker: the job's process ended well, but a process it left behind held its output open, or the task's log %s could not be written, and the log may lack some of it: %v\n", path, err)
		}
		return nil
	}
	if err == nil {
		err = errors.New(ps.String())
	}
	exitAs(ps, fmt.Sprintf("worker: %v (its output: %s)", err, path))
	return fmt.Errorf("worker: %w (its output: %s)", err, path)
}

// exitAs says msg on the standard error and ends this process as the process of ps ended, so
// that Slurm's accounting reports the worker's own exit code or signal. Killed by SIGHUP,
// SIGINT, SIGTERM or SIGKILL (what Slurm and the kernel end a job with), this process is
// killed by the same signal; by any other (SIGQUIT, SIGABRT, SIGSEGV: the Go runtime handles
// those itself, with a stack dump and exit code 2), or where the signal does not end it, it
// exits with code 128 plus the signal's number, as a shell reports such an end. It returns
// without a word where ps is nil (the process did not run) or ended with an exit code of 0 or
// below.
func exitAs(ps *os.ProcessState, msg string) {
	if ps == nil {
		return
	}
	exitSignaled(ps, msg)
	if code := ps.ExitCode(); code > 0 {
		fmt.Fprintln(os.Stderr, msg)
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
