package study_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/study"
)

// TestCLIRunNegativeCounts: `gosbi study run` refuses a negative --retries, --workers, --cpus
// or --throttle with an error naming the flag and the accepted range, before it creates the
// study directory or runs or submits anything, instead of taking the default.
func TestCLIRunNegativeCounts(t *testing.T) {
	study.RequireStudyRuns(t)
	t.Setenv("PATH", t.TempDir()) // no Slurm command can run
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--retries", "-3"}, "--retries = -3, expected 0 or more"},
		{[]string{"--executor", "slurm", "--retries", "-3"}, "--retries = -3, expected 0 or more"},
		{[]string{"--executor", "slurm", "--retries=-1"}, "--retries = -1, expected 0 or more"},
		{[]string{"--workers", "-2"}, "--workers = -2, expected 0 or more"},
		{[]string{"--executor", "slurm", "--cpus", "-1"}, "--cpus = -1, expected 0 or more"},
		{[]string{"--executor", "slurm", "--throttle", "-4"}, "--throttle = -4, expected 0 or more"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			dir := t.TempDir()
			spec := filepath.Join(dir, "spec.json")
			os.WriteFile(spec, []byte(`{"name": "flags", "axes": [{"name": "v", "values": ["large"]}], "stages": [{"name": "work", "func": "series"}]}`), 0o644)
			out := filepath.Join(dir, "out")
			seriesCalls.Store(0)
			err := study.Main(append([]string{"run", spec, "--dir", out}, c.args...))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("study run %s: %v, want an error containing %q", c.args, err, c.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("the refused run created %s", out)
			}
			if n := seriesCalls.Load(); n != 0 {
				t.Errorf("%d jobs ran", n)
			}
		})
	}
	t.Run("zero", func(t *testing.T) { // 0 is accepted: the default of each
		dir := t.TempDir()
		spec := filepath.Join(dir, "spec.json")
		os.WriteFile(spec, []byte(`{"name": "flags", "axes": [{"name": "v", "values": ["large"]}], "stages": [{"name": "work", "func": "series"}]}`), 0o644)
		seriesCalls.Store(0)
		err := study.Main([]string{"run", spec, "--dir", filepath.Join(dir, "out"), "--retries", "0", "--workers", "0", "--cpus", "0", "--throttle", "0"})
		if err != nil || seriesCalls.Load() != 1 {
			t.Fatalf("study run with zero counts: %v, %d jobs ran", err, seriesCalls.Load())
		}
	})
}
