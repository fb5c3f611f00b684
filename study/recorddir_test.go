package study

import (
	"context"
	"testing"
)

// recordDirs holds what RecordDir said to the "record-dir-test" job while it ran.
var recordDirs = map[int]string{}

func init() {
	Register("record-dir-test", func(j *Job) error {
		recordDirs[j.Index] = j.RecordDir()
		return nil
	})
}

// TestJobRecordDir: what RecordDir tells a running job is the directory of its record once it
// is done.
func TestJobRecordDir(t *testing.T) {
	requireStudyRuns(t)
	s, err := Create(t.TempDir(), &Spec{Name: "recorddir", Axes: []Axis{{Name: "x", Values: Ints(1, 2)}},
		Stages: []Stage{{Name: "work", Func: "record-dir-test"}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RunJob(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	r, err := s.Record(1)
	if err != nil {
		t.Fatal(err)
	}
	if recordDirs[1] != r.Dir || r.Dir == "" {
		t.Errorf("RecordDir while the job ran: %q; its record is in %q", recordDirs[1], r.Dir)
	}
}
