package study

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStudyFilesSizeBound puts a sparse file over its bound (no disk used) in place of each
// file a study reads whole: each is refused with its bound before it is read, not read whole
// and then found not to be JSON.
func TestStudyFilesSizeBound(t *testing.T) {
	sparse := func(t *testing.T, path string, n int64) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, n); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		read func(t *testing.T, s *Study) error
		want string
	}{
		{"manifest", func(t *testing.T, s *Study) error {
			sparse(t, filepath.Join(s.Dir, "manifest.json"), 1<<30+1)
			_, err := Open(s.Dir)
			return err
		}, "larger than the 1073741824 bytes (1024 MiB) a study manifest may hold"},
		{"record", func(t *testing.T, s *Study) error {
			sparse(t, filepath.Join(s.recordDir(0), "record.json"), 256<<20+1)
			_, err := s.Record(0)
			return err
		}, "larger than the 268435456 bytes (256 MiB) a job record may hold"},
		{"record checked by Done", func(t *testing.T, s *Study) error {
			sparse(t, filepath.Join(s.recordDir(0), "record.json"), 256<<20+1)
			return s.recordError(0)
		}, "larger than the 268435456 bytes (256 MiB) a job record may hold"},
		{"metrics of a script job", func(t *testing.T, s *Study) error {
			path := filepath.Join(t.TempDir(), partialFile)
			sparse(t, path, 256<<20+1)
			_, err := readPartial(path)
			return err
		}, "larger than the 268435456 bytes (256 MiB) a job record may hold"},
		{"running marker", func(t *testing.T, s *Study) error {
			sparse(t, s.runningPath(1), 1<<20+1)
			_, err := s.readMarker(1)
			return err
		}, "larger than the 1048576 bytes (1 MiB) a running marker may hold"},
		{"failure note", func(t *testing.T, s *Study) error {
			sparse(t, s.failedPath(1), 1<<20+1)
			_, err := s.failureNote(1)
			return err
		}, "larger than the 1048576 bytes (1 MiB) a failure note may hold"},
		{"stage script", func(t *testing.T, s *Study) error {
			path := filepath.Join(t.TempDir(), "big.go")
			sparse(t, path, 16<<20+1)
			_, err := Create(t.TempDir(), &Spec{Name: "script", Stages: []Stage{{Name: "run", Script: path}}}, "")
			return err
		}, "larger than the 16777216 bytes (16 MiB) a stage script may hold"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.read(t, damagedStudy(t))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func init() {
	Register("long-error-test", func(j *Job) error {
		return errors.New(strings.Repeat("<", 2<<20)) // escaped as \u003c: six bytes each
	})
	Register("long-series-test", func(j *Job) error {
		v := make([]float64, 11<<20) // 25 bytes each: over 256 MiB
		for i := range v {
			v[i] = -1.2345678901234567e-300
		}
		j.SetSeries("curve", v)
		return nil
	})
}

// TestStudyWritesWithinBounds: what a job leaves is within the bounds it is read with. An
// error longer than a failure note may hold is cut, so the note stays readable and the job
// runs again; a record larger than a record may hold fails the job with what to do instead.
func TestStudyWritesWithinBounds(t *testing.T) {
	requireStudyRuns(t)
	for _, c := range []struct {
		fn, want string
	}{
		{"long-error-test", "bytes in all; the log holds it whole"},
		{"long-series-test", "more than the 268435456 bytes (256 MiB) a job record may hold"},
	} {
		t.Run(c.fn, func(t *testing.T) {
			s, err := Create(t.TempDir(), &Spec{Name: "bounds", Stages: []Stage{{Name: "work", Func: c.fn}}}, "")
			if err != nil {
				t.Fatal(err)
			}
			if err := s.RunJob(context.Background(), 0); err == nil {
				t.Fatal("the job succeeded, want an error")
			}
			f, err := s.failureNote(0)
			if err != nil || f == nil {
				t.Fatalf("failure note %v, error %v; want a readable note", f, err)
			}
			if !strings.Contains(f.Error, c.want) {
				t.Fatalf("failure note's error %.200q…, want one containing %q", f.Error, c.want)
			}
		})
	}
}
