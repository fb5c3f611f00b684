package study

import (
	"strings"
	"testing"
)

// TestNotCompleteError: the error of an incomplete Slurm study names the failed jobs when
// there are some, and says that none left a note when there are none, instead of formatting
// an absent error ("%!w(<nil>)").
func TestNotCompleteError(t *testing.T) {
	for _, tc := range []struct {
		name string
		st   Status
		want string
	}{
		{"no notes", Status{}, "no missing job left a failure note"},
		{"a failed job", Status{Failed: []FailedJob{{Job: JobInfo{Index: 3, Stage: "sim"}, Failure: Failure{Error: "simulator diverged"}}}}, "simulator diverged"},
	} {
		err := notCompleteError("demo", "/studies/demo", 3, tc.st)
		if msg := err.Error(); !strings.Contains(msg, tc.want) || strings.Contains(msg, "%!") {
			t.Errorf("%s: %q, want it to contain %q and no formatting error", tc.name, msg, tc.want)
		}
	}
}
