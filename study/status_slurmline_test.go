package study

import (
	"strings"
	"testing"
)

// TestSlurmLineIsTrueOfEveryRun: while a run holds the study, the Slurm jobs listed may be its
// own or those of an earlier run killed before they ended, which it waits for (it may even be
// a local run); and their jobs count missing, or failed from an earlier attempt. After the run
// ended, the next run waits for them only where it can ask squeue; a status that did not ask
// the queue (SlurmQueue unset) says the line may be stale. It said that without squeue the
// next run refuses to start "until they are cancelled", but that run cannot tell that they
// were: it refuses until slurm/submitted is removed, cancelled or not.
func TestSlurmLineIsTrueOfEveryRun(t *testing.T) {
	for _, c := range []struct {
		name    string
		st      Status
		want    []string
		wantNot []string
	}{
		{"during a run", Status{Runner: "host 12 (pid 345)", Slurm: []string{"7", "8"}},
			[]string{"Slurm jobs 7,8", "or by an earlier run killed before they ended", "counted missing or failed here", "squeue -j 7,8"},
			[]string{"submitted by this run, hold"}},
		{"after a run", Status{Slurm: []string{"7"}},
			[]string{"Slurm job 7 was", "may be stale", "may still run jobs counted missing or failed here", "scancel 7",
				"where it cannot ask squeue (missing, or failing), refuses to start until slurm/submitted is removed (after scancel 7, if they have not ended)"},
			[]string{"until they are cancelled"}},
	} {
		line := c.st.slurmLine()
		for _, w := range c.want {
			if !strings.Contains(line, w) {
				t.Errorf("%s: %q\nwant it to contain %q", c.name, line, w)
			}
		}
		for _, w := range c.wantNot {
			if strings.Contains(line, w) {
				t.Errorf("%s: %q\nsays %q, not true of a run that waits for an earlier run's jobs", c.name, line, w)
			}
		}
	}
}
