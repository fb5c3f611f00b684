// Package study runs sweeps — tasks × methods × budgets × seeds — as grids of jobs that can
// be resumed, on this machine or as Slurm job arrays.
//
// A Spec names the axes of the grid and the stages (simulate, train, evaluate, aggregate). Each
// stage has one job per combination of the values of the axes it varies over; a job is keyed
// by those values, and its seed (Job.Seed) is a hash of the study name, the stage and the key,
// so a job computes the same thing whichever executor runs it and in whatever order.
//
// A study holds at most MaxJobs (1,000,000) jobs over all its stages: Validate refuses a larger
// grid with its size before anything is allocated.
//
// Create writes the spec and the list of jobs to a directory (manifest.json). A job that
// finishes leaves a record directory — record.json with its parameters, metrics and checksum,
// and the files it wrote (models via Save) — built under a temporary name and renamed into
// place, so a record is complete or absent. A job is done only when its record.json parses and
// matches its checksum, names this job and the files it lists are there; a corrupt or
// truncated record, one of another job, or one that lost a file, makes the job run again, and
// Status says why. Running a study again runs only the jobs that are not done; failures leave a note and a
// log, which Status reports. A job's log (DIR/logs/NNNNN.log, its Job.Log and a script job's
// standard output and error) keeps, of each attempt, the first 1 MiB and the last 4 MiB of
// what the job wrote, with a line between saying how many bytes were dropped, so that a job
// that writes without end does not fill the disk (while the attempt runs, up to 4 MiB more of
// its end stay in the file). Of a Slurm array task, what the worker process prints itself (its
// error, and what a Func writes to the process's standard output or error rather than to
// Job.Log) goes to DIR/slurm/logs/STAGE-JOB_TASK.log with the same bounds (WorkerMain keeps
// them); Slurm's own file of the task, STAGE-JOB_TASK.slurm beside it, keeps what the batch
// shell and Slurm write there, which is not bounded (a worker Command that does not call
// WorkerMain writes its output there too). A failure note or running marker that cannot be read (both are
// written atomically, so only an edit or a disk fault damages one) stops its job until the file
// is removed: Status and the run's error name it (DamagedFile). A job whose running marker is
// of a live worker other than the runner is not started either: another worker runs it.
//
// A worker holds an exclusive flock(2) lock on its running marker (DIR/running/NNNNN.json)
// while it runs the job, and the marker says so ("flock": true); the lock is taken before the
// marker is renamed into place and released after it is removed. Whether a worker lives is
// told from its lock, on any host that shares the study directory: a marker whose lock is held
// is of a running worker, one whose lock is free was left by a worker that ended without
// removing it (killed), which the next run removes, as it removes the temporary file of a
// marker whose worker was killed before renaming it into place (one that an earlier gosbi
// named otherwise is judged by the marker it holds, and kept where that cannot tell). This
// needs locks that the hosts share: NFS mounted without local_lock=flock or local_lock=all
// (Linux clients emulate flock with the server's record locks), Lustre mounted with -o flock.
// With locks local to each host, a marker of another host is found stale while its worker
// runs, and its job may run twice (the first record stands). A marker that claims no lock (on
// a file system that takes none, or written by a gosbi without marker locks), or whose lock
// cannot be probed, is judged by its process where it is of this host (the process exists
// and, where its start can be read (Linux), started before the marker was written), so that it
// is never found stale while its worker runs; of another host, it is shown as running and does
// not stop the job, as its worker cannot be checked.
//
// One process runs a study directory at a time: Run holds an flock(2) lock on DIR/lock, with
// the holder's pid, host and start time written in it. A second run refuses with an error that
// names the holder (ErrLocked), or waits for it (gosbi study run --wait). Status learns
// whether a run holds the lock by taking a shared lock for an instant; a run that meets only
// such locks tries again for up to a second rather than refusing. The kernel releases
// the lock of a killed runner; the next run takes it over with a note, and removes the
// temporary directories its jobs left. Script jobs run in a process group of their own, which
// a stopped run (SIGINT, SIGTERM, a cancelled context) kills as a whole, leaving the jobs it
// had not started pending; on Linux the kernel kills a script job's process when its runner
// dies (Pdeathsig), so that a runner killed with SIGKILL leaves no script job running
// (processes that a script started itself are not killed then).
//
// Executors run the missing jobs: Local in this process (one job per core by default), Slurm
// as one array job per stage (several where a stage has more jobs than the cluster's
// MaxArraySize), each stage depending (afterok) on the previous one; its array tasks run
// `gosbi study worker DIR INDEX`, which calls Study.RunJob. Results loads the records of a
// stage as a Table for plotting; a stage with jobs still missing is an error naming them, as
// a summary over fewer jobs than asked for would not say so (PartialResults reads the
// finished ones). Create, Open and Results have forms for notebook cells, MustCreate, MustOpen
// and Study.MustResults, which panic with the error itself (sbi's Must forms do the same), so
// that a cell does not check an error after each call.
//
// Local runs script jobs side by side, each with its share of the machine: GOMAXPROCS the
// cores over the workers and GOMEMLIMIT 80% of the memory over the workers (Go's collector
// otherwise lets each heap reach twice its live data), unless the runner's environment sets
// them.
//
// A job is a Func registered in the binary that runs the worker (Register), or a Go script
// that `gosbi script` runs and that finds its job with Current. A study directory keeps its
// scripts as .go files under DIR/scripts; inside a Go module, name it with a leading _ or .
// (as the go command ignores such directories) so that `go vet ./...` and `go build ./...`
// do not take the scripts for a package of the module.
package study
