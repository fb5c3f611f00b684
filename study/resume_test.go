package study_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/study"
)

// TestCreateResumesSameSpec: a study created from a spec opens again from the same spec,
// whatever form its empty fields take ("params": {} and "over": [] in a JSON spec are stored
// as absent), so that running a spec file again resumes its study.
func TestCreateResumesSameSpec(t *testing.T) {
	for _, tc := range []struct{ name, spec string }{
		{"empty params", `{"name": "s", "axes": [{"name": "x", "values": [1, 2]}], "stages": [{"name": "work", "func": "work"}], "params": {}}`},
		{"empty over", `{"name": "s", "axes": [{"name": "x", "values": [1, 2]}], "stages": [{"name": "work", "func": "work", "over": []}]}`},
		{"no params", `{"name": "s", "axes": [{"name": "x", "values": [1, 2]}], "stages": [{"name": "work", "func": "work"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for run := 1; run <= 2; run++ {
				spec, err := study.ParseSpec([]byte(tc.spec))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := study.Create(dir, spec, ""); err != nil {
					t.Fatalf("Create, run %d: %v", run, err)
				}
			}
		})
	}
}

// TestCreateRefusesOrphanRecords: a study directory whose manifest.json is gone but which
// holds the records of a run cannot tell which spec they belong to; Create refuses it rather
// than count them as the jobs of the new spec.
func TestCreateRefusesOrphanRecords(t *testing.T) {
	study.RequireStudyRuns(t)
	dir := t.TempDir()
	s, err := study.Create(dir, workSpec(map[string]string{"scale": "1"}), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Run(context.Background(), &study.Local{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "manifest.json")); err != nil {
		t.Fatal(err)
	}
	s2, err := study.Create(dir, workSpec(map[string]string{"scale": "2"}), "")
	if err == nil || !strings.Contains(err.Error(), "no manifest.json") {
		var line string
		if s2 != nil {
			line = s2.Status().Line()
		}
		t.Fatalf("Create over the records of another spec = %v (status %q), want a refusal", err, line)
	}
	// a directory that Create left before writing its manifest (no record yet) is fine
	empty := t.TempDir()
	for _, sub := range []string{"jobs", "failed", "running", "logs", "scripts"} {
		os.MkdirAll(filepath.Join(empty, sub), 0o755)
	}
	if _, err := study.Create(empty, workSpec(nil), ""); err != nil {
		t.Errorf("Create in a directory without records: %v", err)
	}
}

// TestResultsIncompleteStage: the results of a stage some of whose jobs have no record are an
// error naming them; PartialResults gives the finished jobs and the missing ones.
func TestResultsIncompleteStage(t *testing.T) {
	study.RequireStudyRuns(t)
	s, err := study.Create(t.TempDir(), workSpec(map[string]string{"failx": "2"}), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Run(context.Background(), &study.Local{Workers: 1}); err == nil {
		t.Fatal("the run with a failing job reported success")
	}
	for _, stage := range []string{"work", "sum"} {
		tab, err := s.Results(stage)
		if err == nil {
			t.Errorf("Results(%q) = %d rows, no error; want an error naming the missing jobs", stage, tab.Len())
		}
	}
	_, err = s.Results("work")
	if err == nil || !strings.Contains(err.Error(), "job 1 (work x=2)") || !strings.Contains(err.Error(), "3 of its 4 jobs") {
		t.Errorf("Results(work) error %v, want one naming job 1 and counting 3 of 4", err)
	}
	tab, missing, err := s.PartialResults("work")
	if err != nil || tab.Len() != 3 || len(missing) != 1 || missing[0].Index != 1 {
		t.Errorf("PartialResults(work) = %d rows, missing %v, %v; want 3 rows and job 1 missing", tab.Len(), missing, err)
	}
}

// TestRecordMissingFile: a record whose directory lacks a file that record.json lists (deleted,
// or removed while an interrupted worker cleaned up) is not done: Status says which file, and
// the next run runs the job again, so that the stages after it do not fail on the missing file.
func TestRecordMissingFile(t *testing.T) {
	study.RequireStudyRuns(t)
	study.Register("withfile", func(j *study.Job) error {
		j.Set("y", j.Float("x"))
		if err := os.MkdirAll(j.Path("model"), 0o755); err != nil {
			return err
		}
		return os.WriteFile(j.Path("model/weights.bin"), []byte(j.Key), 0o644)
	})
	spec := &study.Spec{Name: "files", Axes: []study.Axis{{Name: "x", Values: study.Ints(1, 2)}},
		Stages: []study.Stage{{Name: "fit", Func: "withfile"}}}
	s, err := study.Create(t.TempDir(), spec, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Run(context.Background(), &study.Local{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	r, err := s.Record(1)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(r.Path("model/weights.bin")); err != nil {
		t.Fatal(err)
	}
	reopened, _ := study.Open(s.Dir) // a fresh process's view
	const reason = "model/weights.bin, listed in record.json, is missing"
	if reopened.Done(1) {
		t.Error("a record without one of its files counts as done")
	}
	if st := reopened.Status(); len(st.Invalid) != 1 || st.Invalid[0].Job.Index != 1 || !strings.Contains(st.Invalid[0].Reason, reason) {
		t.Errorf("status %s, invalid %+v; want job 1 invalid: %s", st.Line(), st.Invalid, reason)
	}
	if _, err := reopened.Record(1); err == nil || !strings.Contains(err.Error(), reason) {
		t.Errorf("Record(1) = %v, want %q", err, reason)
	}
	if err := reopened.Run(context.Background(), &study.Local{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(r.Path("model/weights.bin")); err != nil || string(data) != "x=2" {
		t.Errorf("after the re-run: weights %q, %v", data, err)
	}
}

// TestRecordOfAnotherJob: a record directory that holds the record of another job (copied or
// moved by hand) is not done, so that no job's results are counted twice.
func TestRecordOfAnotherJob(t *testing.T) {
	study.RequireStudyRuns(t)
	s, err := study.Create(t.TempDir(), workSpec(nil), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Run(context.Background(), &study.Local{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(s.Dir, "jobs", "work")
	if err := os.RemoveAll(filepath.Join(work, "00001")); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(work, "00001"), os.DirFS(filepath.Join(work, "00000"))); err != nil {
		t.Fatal(err)
	}
	reopened, _ := study.Open(s.Dir)
	const reason = "record.json is the record of job 0 (work x=1)"
	if reopened.Done(1) {
		t.Error("the record of job 0 counts as job 1's")
	}
	if st := reopened.Status(); len(st.Invalid) != 1 || st.Invalid[0].Job.Index != 1 || !strings.Contains(st.Invalid[0].Reason, reason) {
		t.Errorf("status %s, invalid %+v; want job 1 invalid: %s", st.Line(), st.Invalid, reason)
	}
	if _, err := reopened.Record(1); err == nil || !strings.Contains(err.Error(), reason) {
		t.Errorf("Record(1) = %v, want %q", err, reason)
	}
}
