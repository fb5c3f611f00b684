package study

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStatusAdviceOnFailedJobs: gosbi study status advised "run the study again to retry
// them" about failed jobs even while a run held the study, which retries them itself. Without a
// run it still says so; during a run it says how many times that run tries each job, and that
// the jobs still failed when it ends need the study run again (or, when its executor does not
// say how often it retries, that it may retry them). Invalid records get the same treatment.
func TestStatusAdviceOnFailedJobs(t *testing.T) {
	for _, c := range []struct {
		name    string
		run     Executor // the executor of the run that holds the study's lock; nil: none does
		invalid bool     // the job has an invalid record rather than a failure note
		want    []string
		notWant string
	}{
		{"no run", nil, false, []string{"1 failed job in", "(run the study again to retry them)"}, "run now"},
		{"a run that does not say", otherExecutor{}, false, []string{"1 failed job in", "the run now (pid ", "may retry them itself", "still failed when it ends stay failed until the study runs again"}, "run the study again to retry them)"},
		{"a local run, no retries", &Local{}, false, []string{"the run now (pid ", "tries each job up to 1 time (--retries 0)", "still failed when it ends"}, "run the study again to retry them)"},
		{"a Slurm run, 2 retries", &Slurm{Retries: 2}, false, []string{"the run now (pid ", "tries each job up to 3 times (--retries 2)", "still failed when it ends"}, "run the study again to retry them)"},
		{"invalid, no run", nil, true, []string{"1 job with an invalid record", "(run the study again to re-run them)"}, "run now"},
		{"invalid, a run", &Local{Retries: 1}, true, []string{"1 job with an invalid record", "the run now (pid ", "re-runs those of the stages it has not reached"}, "(run the study again to re-run them)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := countStudy(t, 2)
			if c.invalid {
				if err := os.MkdirAll(s.recordDir(0), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(s.recordDir(0), "record.json"), []byte("{"), 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				f := Failure{Index: 0, Error: "boom", Attempt: 1, Host: "h", Time: time.Now().UTC()}
				if err := writeJSONAtomic(s.failedPath(0), f); err != nil {
					t.Fatal(err)
				}
			}
			if c.run != nil {
				l, err := s.lock(context.Background(), false, nil, retriesOf(c.run))
				if err != nil {
					t.Fatal(err)
				}
				defer l.release()
			}
			err := Main([]string{"status", s.Dir})
			got := fmt.Sprint(err)
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("status error %q, want it to hold %q", got, w)
				}
			}
			if strings.Contains(got, c.notWant) {
				t.Errorf("status error %q holds %q", got, c.notWant)
			}
		})
	}
}

// otherExecutor is an Executor other than Local and Slurm, which says nothing of its retries.
type otherExecutor struct{}

func (otherExecutor) Execute(context.Context, *Study) error { return nil }
