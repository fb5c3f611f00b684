package study

import (
	"context"
	"errors"
	"testing"
)

// requireStudyRuns skips a test that runs a study, or writes a running marker as a run does,
// where study runs are refused (Windows, Plan 9, js, wasip1): there Run and RunJob return
// errNoRuns at once, which TestRunsWhereSupported checks.
func requireStudyRuns(t testing.TB) {
	t.Helper()
	if err := runsSupported(); err != nil {
		t.Skipf("this test runs a study, which this system refuses: %v", err)
	}
}

// TestRunsWhereSupported checks that where study runs are refused, Run and RunJob say so with
// an error that wraps errors.ErrUnsupported, run nothing and leave no record, and that
// elsewhere RunJob runs the job.
func TestRunsWhereSupported(t *testing.T) {
	s, err := Create(t.TempDir(), &Spec{Name: "runs", Axes: []Axis{{Name: "x", Values: Ints(1)}},
		Stages: []Stage{{Name: "work", Func: "runs-test"}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	refused := runsSupported() != nil
	errRun := s.Run(context.Background(), &Local{Workers: 1})
	errJob := s.RunJob(context.Background(), 0)
	for what, err := range map[string]error{"Run": errRun, "RunJob": errJob} {
		if refused != errors.Is(err, errors.ErrUnsupported) || !refused && err != nil {
			t.Errorf("%s: %v; runs refused here: %v", what, err, refused)
		}
	}
	if s.Done(0) == refused {
		t.Errorf("job 0 done: %v; runs refused here: %v", s.Done(0), refused)
	}
}

func init() {
	Register("runs-test", func(j *Job) error { j.Set("y", 1); return nil })
}
