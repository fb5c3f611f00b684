package study

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// earlierRuns records, by job index, whether the file named by the job's "gone" parameter
// existed when the "earlier-test" job ran: the fake squeue writes it once it lists the
// earlier run's Slurm jobs no more.
var earlierRuns sync.Map

func init() {
	Register("earlier-test", func(j *Job) error {
		_, err := os.Stat(j.Params["gone"])
		earlierRuns.Store(j.Index, err == nil)
		j.Set("y", 2*j.Float("x"))
		return nil
	})
}

// earlierStudy is a study of three "earlier-test" jobs whose slurm/submitted names the Slurm
// jobs 900 and 901 of an earlier run that was killed; gone is the file the fake squeue writes
// when it no longer lists them.
func earlierStudy(t *testing.T) (s *Study, gone string) {
	t.Helper()
	earlierRuns.Clear()
	gone = filepath.Join(t.TempDir(), "gone")
	s, err := Create(t.TempDir(), &Spec{Name: "earlier", Axes: []Axis{{Name: "x", Values: Ints(1, 2, 3)}},
		Stages: []Stage{{Name: "work", Func: "earlier-test"}}, Params: map[string]string{"gone": gone}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(s.Dir, "slurm"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Dir, "slurm", submittedFile), []byte("900\n901\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return s, gone
}

// TestEveryExecutorWaitsForEarlierSlurmRun: slurm/submitted names the Slurm jobs of a killed
// run, and squeue lists them for its first two answers; a run with the local executor, as one
// with the Slurm executor, runs or submits nothing before squeue lists them no more, says on
// its note that it waits, and removes slurm/submitted.
func TestEveryExecutorWaitsForEarlierSlurmRun(t *testing.T) {
	requireStudyRuns(t)
	defer func(d time.Duration) { slurmPoll = d }(slurmPoll)
	slurmPoll = time.Millisecond
	for _, name := range []string{"local", "slurm"} {
		t.Run(name, func(t *testing.T) {
			s, gone := earlierStudy(t)
			count, early := filepath.Join(t.TempDir(), "count"), filepath.Join(t.TempDir(), "early")
			fakeSlurm(t, map[string]string{
				"squeue": `n=0; [ -e ` + count + ` ] && read n < ` + count + `; n=$((n+1)); echo $n > ` + count + `
if [ $n -le 2 ]; then echo 900; echo 901; else : > ` + gone + `; fi`,
				"sbatch":   `[ -e ` + gone + ` ] || : > ` + early + `; echo 1000`,
				"sacct":    "exit 1",
				"scontrol": "exit 1",
			})
			var e Executor = &Local{Workers: 1}
			if name == "slurm" {
				e = &Slurm{Command: []string{"true"}}
			}
			var note strings.Builder
			err := s.run(context.Background(), e, false, &note)
			if name == "local" && err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(note.String(), "waiting for the Slurm jobs 900,901 of an earlier run") {
				t.Errorf("the note does not say that the run waits: %q", note.String())
			}
			for i := range s.Jobs {
				if ran, ok := earlierRuns.Load(i); ok && !ran.(bool) {
					t.Errorf("job %d ran while the earlier run's Slurm jobs were queued", i)
				}
			}
			if _, err := os.Stat(early); err == nil {
				t.Errorf("sbatch was called while the earlier run's Slurm jobs were queued")
			}
			if name == "local" && !s.Status().Complete() {
				t.Errorf("not complete: %s", s.Status())
			}
			if _, err := os.Stat(filepath.Join(s.Dir, "slurm", submittedFile)); !os.IsNotExist(err) {
				t.Errorf("slurm/submitted is left after the earlier jobs left the queue: %v", err)
			}
		})
	}
}

// TestEarlierSlurmRunUnknown: where squeue is missing or keeps failing, no executor can tell
// whether the Slurm jobs of the killed run are gone: each refuses, running and submitting
// nothing, with an error naming the jobs, how to cancel them and the file to remove, and
// leaves slurm/submitted in place. It said to cancel them "or" remove the file, but without
// squeue cancelling them alone leaves the next run refusing as well: cancel, then remove.
func TestEarlierSlurmRunUnknown(t *testing.T) {
	requireStudyRuns(t)
	defer func(d time.Duration) { slurmPoll = d }(slurmPoll)
	slurmPoll = time.Millisecond
	for _, c := range []struct {
		name     string
		executor string
		squeue   string // the fake squeue's script; "" for none on PATH
		why      string
	}{
		{"local without squeue", "local", "", "squeue"},
		{"slurm without squeue", "slurm", "", "squeue"},
		{"local with a failing squeue", "local", "echo 'Unable to contact slurm controller' >&2; exit 1", "Unable to contact slurm controller"},
		{"slurm with a failing squeue", "slurm", "echo 'Unable to contact slurm controller' >&2; exit 1", "Unable to contact slurm controller"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := earlierStudy(t)
			submitted := filepath.Join(t.TempDir(), "submitted")
			scripts := map[string]string{"sbatch": `: > ` + submitted + `; echo 1000`, "sacct": "exit 1", "scontrol": "exit 1"}
			if c.squeue != "" {
				scripts["squeue"] = c.squeue
			}
			fakeSlurm(t, scripts)
			t.Setenv("PATH", strings.SplitN(os.Getenv("PATH"), string(os.PathListSeparator), 2)[0]) // the fakes only
			var e Executor = &Local{Workers: 1}
			if c.executor == "slurm" {
				e = &Slurm{Command: []string{"true"}}
			}
			err := s.run(context.Background(), e, false, nil)
			file := filepath.Join(s.Dir, "slurm", submittedFile)
			for _, want := range []string{"900,901", "cannot tell whether those Slurm jobs are gone", "scancel 900 901", "if they may still run, then remove " + file, c.why} {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("error %v, want one with %q", err, want)
				}
			}
			n := 0
			earlierRuns.Range(func(any, any) bool { n++; return true })
			if n > 0 {
				t.Errorf("%d jobs ran", n)
			}
			if _, err := os.Stat(submitted); err == nil {
				t.Errorf("sbatch was called")
			}
			if _, err := os.Stat(file); err != nil {
				t.Errorf("slurm/submitted: %v, want it kept", err)
			}
		})
	}
}
