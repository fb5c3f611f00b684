package study

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// damagedRuns counts the runs of the "damaged-test" job by job index.
var damagedRuns sync.Map

func init() {
	Register("damaged-test", func(j *Job) error {
		n, _ := damagedRuns.LoadOrStore(j.Index, new(int))
		*n.(*int)++
		j.Set("y", 2*j.Float("x"))
		return nil
	})
}

func runsOf(i int) int {
	if n, ok := damagedRuns.Load(i); ok {
		return *n.(*int)
	}
	return 0
}

// damagedStudy is a study of three jobs of the "damaged-test" function.
func damagedStudy(t *testing.T) *Study {
	t.Helper()
	damagedRuns.Clear()
	s, err := Create(t.TempDir(), &Spec{Name: "damaged", Axes: []Axis{{Name: "x", Values: Ints(1, 2, 3)}},
		Stages: []Stage{{Name: "work", Func: "damaged-test"}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// damages are contents of a failure note or running marker that gosbi never writes.
var damages = []struct{ name, data string }{
	{"truncated", `{"index": 1, "err`},
	{"empty", ``},
	{"not json", "\x00\x00\x00\x00"},
	{"no content", `{}`},
}

// TestDamagedFailureNote: a failure note that does not parse, or holds no attempt, is reported
// in Status by its path with what to do; the job does not run (its attempt count is lost) and
// the note stays as it is, until the note is removed, when the job runs again.
func TestDamagedFailureNote(t *testing.T) {
	requireStudyRuns(t)
	for _, d := range damages {
		t.Run(d.name, func(t *testing.T) {
			s := damagedStudy(t)
			path := s.failedPath(1)
			os.WriteFile(path, []byte(d.data), 0o644)
			st := s.Status()
			if st.Count(Damaged) != 1 || st.Count(Missing) != 2 || len(st.Damaged) != 1 || st.Damaged[0].Path != path || st.Damaged[0].Job.Index != 1 {
				t.Fatalf("status %s, damaged %+v; want job 1 damaged with %s", st.Line(), st.Damaged, path)
			}
			if text := st.String(); !strings.Contains(text, "DAMAGED failure note "+path+" of job 1 (work x=2)") || !strings.Contains(text, "remove the file") {
				t.Errorf("status text does not name the damaged note and what to do:\n%s", text)
			}
			if err := Main([]string{"status", s.Dir}); err == nil || !strings.Contains(err.Error(), "1 damaged file") {
				t.Errorf("gosbi study status: %v, want an error counting the damaged file", err)
			}
			err := s.run(context.Background(), &Local{Workers: 1, Retries: 2}, false, nil)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "remove the file") {
				t.Fatalf("run: %v, want an error naming %s and what to do", err, path)
			}
			if runsOf(1) != 0 || runsOf(0) != 1 || runsOf(2) != 1 {
				t.Errorf("runs of jobs 0, 1, 2: %d, %d, %d; want 1, 0, 1", runsOf(0), runsOf(1), runsOf(2))
			}
			if data, _ := os.ReadFile(path); string(data) != d.data {
				t.Errorf("the damaged note was replaced by %q", data)
			}
			if err := s.interrupted(context.Background(), 1, syscall.SIGTERM); err == nil || !strings.Contains(err.Error(), path) {
				t.Errorf("interrupted: %v, want an error naming %s", err, path)
			}
			if data, _ := os.ReadFile(path); string(data) != d.data {
				t.Errorf("interrupted replaced the damaged note by %q", data)
			}
			os.Remove(path)
			if err := s.run(context.Background(), &Local{Workers: 1}, false, nil); err != nil {
				t.Fatalf("run after the note was removed: %v", err)
			}
			if st := s.Status(); !st.Complete() || len(st.Damaged) != 0 || runsOf(1) != 1 {
				t.Errorf("after removing the note: %s, job 1 ran %d times", st, runsOf(1))
			}
		})
	}
}

// TestDamagedRunningMarker: a running marker that does not parse, or names no process, is
// reported in Status by its path with what to do, not as a running job. Nobody can tell whether
// a worker still runs its job, so the job does not run and the run's cleanup keeps the marker
// and the job's temporary directories, saying so, until the marker is removed.
func TestDamagedRunningMarker(t *testing.T) {
	requireStudyRuns(t)
	for _, d := range damages {
		t.Run(d.name, func(t *testing.T) {
			s := damagedStudy(t)
			path := s.runningPath(1)
			os.WriteFile(path, []byte(d.data), 0o644)
			os.MkdirAll(filepath.Join(s.Dir, "jobs", "work"), 0o755)
			tmp, err := os.MkdirTemp(filepath.Join(s.Dir, "jobs", "work"), ".tmp-00001-")
			if err != nil {
				t.Fatal(err)
			}
			st := s.Status()
			if st.Count(Damaged) != 1 || st.Count(Running) != 0 || len(st.Damaged) != 1 || st.Damaged[0].Path != path {
				t.Fatalf("status %s, damaged %+v; want job 1 damaged with %s", st.Line(), st.Damaged, path)
			}
			if text := st.String(); !strings.Contains(text, "DAMAGED running marker "+path+" of job 1 (work x=2)") || !strings.Contains(text, "remove the file") {
				t.Errorf("status text does not name the damaged marker and what to do:\n%s", text)
			}
			var note bytes.Buffer
			err = s.run(context.Background(), &Local{Workers: 1}, false, &note)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "remove the file") {
				t.Fatalf("run: %v, want an error naming %s and what to do", err, path)
			}
			if !strings.Contains(note.String(), path) {
				t.Errorf("the run's cleanup did not say it kept %s: %q", path, note.String())
			}
			if runsOf(1) != 0 || runsOf(0) != 1 || runsOf(2) != 1 {
				t.Errorf("runs of jobs 0, 1, 2: %d, %d, %d; want 1, 0, 1", runsOf(0), runsOf(1), runsOf(2))
			}
			if data, _ := os.ReadFile(path); string(data) != d.data {
				t.Errorf("the damaged marker was replaced by %q", data)
			}
			if _, err := os.Stat(tmp); err != nil {
				t.Errorf("the temporary directory of job 1 was removed: %v", err)
			}
			os.Remove(path)
			if err := s.run(context.Background(), &Local{Workers: 1}, false, nil); err != nil {
				t.Fatalf("run after the marker was removed: %v", err)
			}
			if st := s.Status(); !st.Complete() || len(st.Damaged) != 0 || runsOf(1) != 1 {
				t.Errorf("after removing the marker: %s, job 1 ran %d times", st, runsOf(1))
			}
			if _, err := os.Stat(tmp); err == nil {
				t.Errorf("the temporary directory %s is left", tmp)
			}
		})
	}
}

// TestDamagedMarkerOfDoneJob: a done job stays done with a damaged running marker; Status
// names the marker, and cleanup keeps it and the job's temporary directories.
func TestDamagedMarkerOfDoneJob(t *testing.T) {
	requireStudyRuns(t)
	s := damagedStudy(t)
	if err := s.run(context.Background(), &Local{Workers: 1}, false, nil); err != nil {
		t.Fatal(err)
	}
	path := s.runningPath(1)
	os.WriteFile(path, []byte(`{"host": "h`), 0o644)
	tmp, err := os.MkdirTemp(filepath.Join(s.Dir, "jobs", "work"), ".tmp-00001-")
	if err != nil {
		t.Fatal(err)
	}
	st := s.Status()
	if !st.Complete() || len(st.Damaged) != 1 || st.Damaged[0].Path != path {
		t.Fatalf("status %s, damaged %+v; want all done and %s damaged", st.Line(), st.Damaged, path)
	}
	var note bytes.Buffer
	if err := s.run(context.Background(), &Local{Workers: 1}, false, &note); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(note.String(), path) {
		t.Errorf("the run's cleanup did not say it kept %s: %q", path, note.String())
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Errorf("the temporary directory of job 1 was removed: %v", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the damaged marker was removed: %v", err)
	}
}

// TestSlurmDamagedSubmitsNothing: the Slurm executor submits nothing while a job to run has a
// damaged failure note or running marker, and says which; noting a lost task neither replaces
// a damaged note nor removes a damaged marker.
func TestSlurmDamagedSubmitsNothing(t *testing.T) {
	requireStudyRuns(t)
	for _, which := range []string{"failed", "running"} {
		t.Run(which, func(t *testing.T) {
			called := filepath.Join(t.TempDir(), "called")
			fake := "echo $0 >> '" + called + "'\nexit 1"
			fakeSlurm(t, map[string]string{"sbatch": fake, "squeue": fake, "scancel": fake, "scontrol": fake, "sacct": fake})
			s := damagedStudy(t)
			path := s.failedPath(1)
			if which == "running" {
				path = s.runningPath(1)
			}
			os.WriteFile(path, []byte("{"), 0o644)
			err := s.run(context.Background(), &Slurm{Poll: time.Millisecond, MaxArray: 10}, false, nil)
			if err == nil || !strings.Contains(err.Error(), path) {
				t.Fatalf("run: %v, want an error naming %s", err, path)
			}
			if data, err := os.ReadFile(called); err == nil {
				t.Errorf("Slurm commands ran: %s", data)
			}
			if data, _ := os.ReadFile(path); string(data) != "{" {
				t.Errorf("the damaged file was replaced by %q", data)
			}
		})
	}
	t.Run("lost", func(t *testing.T) {
		fakeSlurm(t, map[string]string{"scontrol": "exit 1"})
		s := damagedStudy(t)
		path := s.failedPath(1)
		os.WriteFile(path, []byte("{"), 0o644)
		old := time.Now().Add(-time.Hour)
		os.Chtimes(path, old, old)
		marker := s.runningPath(2)
		os.WriteFile(marker, []byte("{"), 0o644)
		sub := Submission{Stage: "work", JobID: "7", Indices: []int{0, 1, 2}, Submitted: time.Now().Add(-time.Minute)}
		(&Slurm{}).noteLost(context.Background(), s, []Submission{sub}, nil)
		if data, _ := os.ReadFile(path); string(data) != "{" {
			t.Errorf("the damaged note was replaced by %q", data)
		}
		if data, _ := os.ReadFile(marker); string(data) != "{" {
			t.Errorf("the damaged marker was replaced by %q", data)
		}
		if f := s.Failure(0); f == nil || f.Attempt != 1 {
			t.Errorf("job 0's note %+v, want attempt 1", f)
		}
	})
}
