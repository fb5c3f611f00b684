package study_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/study"
)

// TestStatusNamesSlurmJobsOfKilledRun: a run of the Slurm executor killed (kill -9) while its
// arrays wait in the queue leaves their ids in DIR/slurm/submitted. Status counted their jobs
// missing ("it runs when the study runs again") and did not say that Slurm still holds them;
// it now names those Slurm jobs, says they may still run jobs of the study and how to cancel
// them, in its text and in a notebook (without squeue, which would tell whether they still do:
// TestStatusAsksQueueOfKilledRun).
func TestStatusNamesSlurmJobsOfKilledRun(t *testing.T) {
	dir := t.TempDir()
	s, err := study.Create(dir, trainingSpec(), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "slurm"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "slurm", "submitted"), []byte("2981\n2982\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir()) // no squeue: Status cannot tell whether the jobs are gone
	st := s.Status()
	if !slices.Equal(st.Slurm, []string{"2981", "2982"}) {
		t.Errorf("Status().Slurm = %q, want [2981 2982]", st.Slurm)
	}
	md, _ := st.MIMEBundle()["text/markdown"].(string)
	for _, c := range []struct{ what, text, want string }{
		{"String", st.String(), "Slurm jobs 2981,2982"},
		{"String", st.String(), "may still run jobs counted missing or failed here"},
		{"String", st.String(), "scancel 2981 2982"},
		{"String", st.String(), "may be stale"},
		{"markdown", md, `Slurm jobs 2981\,2982`},
	} {
		if !strings.Contains(c.text, c.want) {
			t.Errorf("status %s:\n%s\nwant it to contain %q", c.what, c.text, c.want)
		}
	}

	if err := os.Remove(filepath.Join(dir, "slurm", "submitted")); err != nil {
		t.Fatal(err)
	}
	if st := s.Status(); st.Slurm != nil || strings.Contains(st.String(), "Slurm jobs") {
		t.Errorf("status without Slurm jobs listed:\n%s\nwant no line about Slurm jobs", st)
	}
}
