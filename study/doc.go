// Package study runs sweeps — tasks × methods × budgets × seeds — as grids of jobs that can
// be resumed, on this machine or as Slurm job arrays.
//
// A Spec names the axes of the grid and the stages (simulate, train, evaluate, aggregate). Each
// stage has one job per combination of the values of the axes it varies over; a job is keyed
// by those values, and its seed (Job.Seed) is a hash of the study name, the stage and the key,
// so a job computes the same thing whichever executor runs it and in whatever order.
//
// Create writes the spec and the list of jobs to a directory (manifest.json). A job that
// finishes leaves a record directory — record.json with its parameters and metrics, and the
// files it wrote (models via Save) — built under a temporary name and renamed into place, so a
// record is complete or absent. Running a study again runs only the jobs without a record;
// failures leave a note and a log, which Status reports.
//
// Executors run the missing jobs: Local in this process (one job per core by default), Slurm
// as one array job per stage, each stage depending (afterok) on the previous one; its array
// tasks run `gosbi study worker DIR INDEX`, which calls Study.RunJob. Results loads the
// records of a stage as a Table for plotting.
//
// A job is a Func registered in the binary that runs the worker (Register), or a Go script
// that `gosbi script` runs and that finds its job with Current.
package study
