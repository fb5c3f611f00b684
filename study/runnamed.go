package study

import (
	"context"
	"fmt"
)

// RunNamed runs the study's missing jobs with the executor that a notebook parameter names:
// "local" runs them on this machine (Local, one job per core), "slurm" submits one
// `sbatch --array` job per stage and waits (Slurm; a job that ends without a record is
// submitted once more), and "read" runs nothing, for a study whose jobs ran elsewhere
// (`gosbi study run DIR --executor slurm`). Progress, if not nil, receives the study's status
// while the jobs run and once at the end. RunNamed returns the Slurm submissions (none for the
// other executors), and an error when the name is unknown, a job failed, or the study is not
// complete afterwards.
func (s *Study) RunNamed(ctx context.Context, executor string, progress func(*Status)) ([]Submission, error) {
	var (
		subs []Submission
		err  error
	)
	switch executor {
	case "local":
		err = s.Run(ctx, &Local{Progress: progress})
	case "slurm":
		sl := &Slurm{Retries: 1, Progress: progress}
		err = s.Run(ctx, sl)
		subs = sl.Submissions()
	case "read":
	default:
		return nil, fmt.Errorf("study: executor %q, expected local, slurm or read", executor)
	}
	st := s.Status()
	if progress != nil {
		progress(st)
	}
	if err != nil {
		return subs, err
	}
	if !st.Complete() {
		return subs, fmt.Errorf("study: the study in %s is not complete (%s); run: gosbi study run %s --executor slurm", s.Dir, st.Line(), s.Dir)
	}
	return subs, nil
}
