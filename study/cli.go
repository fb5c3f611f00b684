package study

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/gosbi/gosbi/internal/text"
)

const usage = `usage:
  gosbi study run SPEC.json [--executor local|slurm] [--dir DIR] [options]
  gosbi study run DIR [--executor local|slurm] [options]   (resume a study directory)
  gosbi study status DIR
  gosbi study worker DIR INDEX      (what Slurm array tasks run)

` + runOptions

const runOptions = `run options:
  --executor E      local (default): run the jobs on this machine; slurm: one sbatch array per stage
  --dir DIR         the study directory (default: the study's name); a directory argument is its own
  --wait            when another run holds the study's lock, wait for it to end (default: refuse)
  --workers N       local: jobs at once (default: one per core)
  --retries N       resubmit jobs that fail, up to N more times (default 0 local, 2 slurm)
  --partition P     slurm: partition
  --time T          slurm: time limit per task (e.g. 2:00:00)
  --mem M           slurm: memory per task (e.g. 4G)
  --cpus N          slurm: CPUs per task
  --throttle N      slurm: most tasks of one array running at once

A study holds at most 1,000,000 jobs. One run at a time: a second run of the same directory
refuses, naming the process that runs it (pid, host, start time), unless --wait is given.
`

const runSynopsis = `usage: gosbi study run SPEC.json [--executor local|slurm] [--dir DIR] [options]
       gosbi study run DIR [--executor local|slurm] [options]   (resume a study directory)

Runs the jobs of a study that have no valid record yet, stage after stage; running it again
resumes it. Interrupted (Ctrl-C, SIGTERM), it stops the running jobs and leaves the others
pending.

`

const statusSynopsis = `usage: gosbi study status DIR

Prints how many jobs of the study in DIR are done, pending, failed or hold an invalid record,
and exits with status 1 when any failed or is invalid (run the study again to retry them; while
a run holds the study, it says how many times that run tries each job, and those still failed
when it ends need the study run again), or when a job's failure note or running marker is
damaged (remove it to let the job run again).
It reads no Slurm queue: a job waiting in a Slurm array counts as missing until it starts; the
Slurm jobs a run submitted and has not seen end are named (squeue -j shows them).
`

const workerSynopsis = `usage: gosbi study worker DIR INDEX

Runs job INDEX of the study in DIR and records its result: what each task of a Slurm array runs.
SIGTERM or Ctrl-C (scancel, the time limit) stops the job and records it as failed, interrupted;
running the study again runs it again. A job whose record was written before the signal stays
done, and the worker exits with success.
`

// Main is the `gosbi study` command.
func Main(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("missing sub-command\n%s", usage)
	}
	switch args[0] {
	case "run":
		if wantsHelp(args[1:]) {
			fmt.Print(runSynopsis + runOptions)
			return nil
		}
		return runMain(args[1:], os.Stderr)
	case "status":
		if wantsHelp(args[1:]) {
			fmt.Print(statusSynopsis)
			return nil
		}
		if len(args) != 2 {
			return fmt.Errorf("status takes the study directory\n%s", usage)
		}
		s, err := Open(args[1])
		if err != nil {
			return err
		}
		st := s.Status()
		fmt.Print(st)
		if n := len(st.Damaged); n > 0 {
			return fmt.Errorf("%d damaged %s in %s (the jobs do not run until they are removed; see above)", n, text.Plural(n, "file", "files"), args[1])
		}
		if n := len(st.Failed); n > 0 {
			return fmt.Errorf("%s in %s (%s)", text.Count(n, "failed job"), args[1], st.retryAdvice())
		}
		if n := len(st.Invalid); n > 0 {
			return fmt.Errorf("%d %s with an invalid record in %s (%s)", n, text.Plural(n, "job", "jobs"), args[1], st.rerunAdvice())
		}
		return nil
	case "worker":
		if wantsHelp(args[1:]) {
			fmt.Print(workerSynopsis)
			return nil
		}
		return WorkerMain(args[1:])
	case "help", "-h", "--help":
		fmt.Print(usage)
		return nil
	}
	if wantsHelp(args) {
		fmt.Print(usage)
		return nil
	}
	return fmt.Errorf("unknown sub-command %q\n%s", args[0], usage)
}

// WorkerMain runs one job: args are the study directory and the job index. It is what
// `gosbi study worker DIR INDEX` and every Slurm array task run. Where the environment
// variable GOSBI_STUDY_TASK_LOG names a file (the Slurm executor's batch script sets it), it
// runs this program again with the same arguments (os.Args) and writes what that process
// prints to the file, keeping the first 1 MiB and the last 4 MiB as a job's log does; where
// that process fails, WorkerMain exits as it did, for Slurm's accounting: with its exit code,
// killed by its signal where that is SIGHUP, SIGINT, SIGTERM or SIGKILL, or else with code
// 128 plus the signal's number (the Go runtime would answer SIGQUIT or SIGABRT with a stack
// dump). Where it ended well but its output could not all go to the file, WorkerMain says so
// on its standard error and returns nil.
func WorkerMain(args []string) error {
	if path := os.Getenv(envTaskLog); path != "" {
		return capTask(path)
	}
	if len(args) != 2 {
		return fmt.Errorf("worker takes DIR INDEX, got %q", args)
	}
	i, err := strconv.Atoi(args[1])
	if err != nil {
		return fmt.Errorf("worker: INDEX = %q, expected a job index", args[1])
	}
	s, err := Open(args[0])
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(withAttempt(context.Background()))
	defer cancel()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	done := make(chan error, 1)
	go func() { done <- s.RunJob(ctx, i) }()
	select {
	case err := <-done:
		return err
	case sg := <-sig: // scancel or the time limit: leave a note before Slurm's SIGKILL
		err := s.interrupted(ctx, i, sg) // first: the job's end, once cancelled, would race with it
		cancel()
		return err
	}
}

// openOrCreate opens the study directory arg, or creates the study of the spec file arg in dir
// (default: the study's name).
func openOrCreate(arg, dir string) (*Study, error) {
	if fi, err := os.Stat(arg); err == nil && fi.IsDir() {
		if dir != "" && dir != arg {
			return nil, fmt.Errorf("run %s is a study directory; --dir %s would be another", arg, dir)
		}
		return Open(arg)
	}
	spec, err := ReadSpec(arg)
	if err != nil {
		return nil, err
	}
	if dir == "" {
		dir = spec.Name
	}
	return Create(dir, spec, filepath.Dir(arg))
}

// runMain is `gosbi study run`.
func runMain(args []string, progress io.Writer) error {
	fs := flag.NewFlagSet("study run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	executor := fs.String("executor", "local", "")
	dir := fs.String("dir", "", "")
	workers := fs.Int("workers", 0, "")
	retries := fs.Int("retries", -1, "")
	partition := fs.String("partition", "", "")
	limit := fs.String("time", "", "")
	mem := fs.String("mem", "", "")
	cpus := fs.Int("cpus", 0, "")
	throttle := fs.Int("throttle", 0, "")
	wait := fs.Bool("wait", false, "")
	var pos []string
	for len(args) > 0 { // flags may come before or after SPEC
		if err := fs.Parse(args); err != nil {
			return fmt.Errorf("%v\n%s", err, usage)
		}
		args = fs.Args()
		if len(args) > 0 {
			pos, args = append(pos, args[0]), args[1:]
		}
	}
	if len(pos) != 1 {
		return fmt.Errorf("run takes one spec file, got %q\n%s", pos, usage)
	}
	set := map[string]bool{} // the flags given: --retries -1 is not the default's -1
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, c := range []struct {
		name, zero string
		v          int
	}{
		{"retries", "tries each job once", *retries},
		{"workers", "one job per core", *workers},
		{"cpus", "the partition's default", *cpus},
		{"throttle", "no limit", *throttle},
	} {
		if set[c.name] && c.v < 0 {
			return fmt.Errorf("--%s = %d, expected 0 or more (0: %s)", c.name, c.v, c.zero)
		}
	}
	if err := runsSupported(); err != nil { // before a study directory is created
		return err
	}
	s, err := openOrCreate(pos[0], *dir)
	if err != nil {
		return err
	}
	var e Executor
	switch *executor {
	case "local":
		e = &Local{Workers: *workers, Retries: max(*retries, 0), Progress: TextProgress(progress)}
	case "slurm":
		if !set["retries"] {
			*retries = 2
		}
		e = &Slurm{Partition: *partition, Time: *limit, Memory: *mem, CPUsPerTask: *cpus, Throttle: *throttle,
			Retries: *retries, Progress: TextProgress(progress)}
	default:
		return fmt.Errorf("--executor = %q, expected local or slurm", *executor)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = s.run(ctx, e, *wait, progress)
	if errors.Is(err, ErrLocked) {
		return err
	}
	fmt.Fprint(progress, s.Status())
	return err
}

// wantsHelp reports whether args ask for help (before a "--").
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}
