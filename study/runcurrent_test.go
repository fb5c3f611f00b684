package study_test

import (
	"strings"
	"testing"

	"github.com/gosbi/gosbi/study"
)

// TestRunCurrent: a script's RunCurrent runs the function of the current job's stage with that
// job, and without one for the stage returns an error naming the stage and those it has; with
// no current job it returns Current's error.
func TestRunCurrent(t *testing.T) {
	t.Setenv("GOSBI_STUDY_DIR", "")
	if err := study.RunCurrent(nil); err == nil || !strings.Contains(err.Error(), "no current job") {
		t.Errorf("RunCurrent outside a study: error %v, want Current's", err)
	}
	s, err := study.Create(t.TempDir(), workSpec(nil), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOSBI_STUDY_DIR", s.Dir)
	t.Setenv("GOSBI_STUDY_INDEX", "0")
	t.Setenv("GOSBI_STUDY_OUT", t.TempDir())
	var ran string
	stage := func(name string) study.Func {
		return func(j *study.Job) error {
			if j.Index != 0 {
				t.Errorf("%s ran for job %d, want 0", name, j.Index)
			}
			ran = name
			return nil
		}
	}
	err = study.RunCurrent(map[string]study.Func{"work": stage("work"), "sum": stage("sum")})
	if err != nil || ran != "work" {
		t.Errorf("RunCurrent ran %q with error %v, want the work stage's function without error", ran, err)
	}
	ran = ""
	err = study.RunCurrent(map[string]study.Func{"train": stage("train"), "summary": stage("summary"), "sum": stage("sum")})
	if ran != "" || err == nil || !strings.Contains(err.Error(), `stage "work"`) || !strings.Contains(err.Error(), `"sum", "summary" or "train"`) {
		t.Errorf("RunCurrent without the job's stage ran %q, error %v; want none run and an error naming the stage and those there are", ran, err)
	}
}
