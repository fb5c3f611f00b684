package study

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// signalBody is the work of the "signal-test" function, set by each case.
var signalBody func(j *Job) error

func init() {
	Register("signal-test", func(j *Job) error { return signalBody(j) })
}

// TestSignalAndCommitExclusive: a worker stopped by a signal (interrupted) and the end of its
// job's attempt (the record renamed into place, or the failure note written) exclude each
// other: whichever comes first decides, and the worker's error, the record, the failure note
// and the log agree with it, wherever the signal comes. No temporary directory or running
// marker of the attempt is left.
func TestSignalAndCommitExclusive(t *testing.T) {
	requireStudyRuns(t)
	cases := []struct {
		name string
		// signal is where interrupted is called: "before" RunJob, "body" (while the job
		// runs), "rename" (in the commit, before the rename) or "after" RunJob returned.
		signal string
		fail   bool   // the job itself fails
		done   bool   // the job ends with a record
		runErr string // in RunJob's error ("" for none)
		sigErr string // in interrupted's error ("" for none)
		note   string // in the failure note ("" for no note)
		ran    bool   // the job's function ran
	}{
		{name: "after the record", signal: "after", done: true, ran: true},
		{name: "during the commit", signal: "rename", done: true, ran: true},
		{name: "while the job runs", signal: "body", runErr: "interrupted", sigErr: "interrupted by signal terminated",
			note: "interrupted by signal terminated", ran: true},
		{name: "before the job starts", signal: "before", runErr: "interrupted", sigErr: "interrupted by signal terminated",
			note: "interrupted by signal terminated"},
		{name: "after a failure", signal: "after", fail: true, runErr: "boom", sigErr: "boom", note: "boom", ran: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Create(t.TempDir(), &Spec{Name: "signal", Axes: []Axis{{Name: "x", Values: Ints(1)}},
				Stages: []Stage{{Name: "work", Func: "signal-test"}}}, "")
			if err != nil {
				t.Fatal(err)
			}
			ctx := withAttempt(context.Background())
			var sigErr error
			sigDone := make(chan struct{})
			sent := false // whether signal has been called, or started on a goroutine
			signal := func() {
				defer close(sigDone)
				sigErr = s.interrupted(ctx, 0, syscall.SIGTERM)
			}
			ran := false
			signalBody = func(j *Job) error {
				ran = true
				if err := os.WriteFile(j.Path("out.txt"), []byte("out"), 0o644); err != nil {
					return err
				}
				j.Set("y", 1)
				if c.signal == "body" {
					sent = true
					signal()
				}
				if c.fail {
					return errors.New("boom")
				}
				return nil
			}
			beforeRename = func(int) {
				if c.signal == "rename" {
					sent = true
					go signal() // it waits for the commit to end, or races with it
				}
			}
			t.Cleanup(func() { beforeRename = nil })
			if c.signal == "before" {
				sent = true
				signal()
			}
			runErr := s.RunJob(ctx, 0)
			if c.signal == "after" {
				sent = true
				signal()
			}
			if !sent { // RunJob failed before the point of the signal: waiting for it would hang
				t.Fatalf("RunJob returned before the signal was sent (%s): %v", c.signal, runErr)
			}
			<-sigDone
			check := func(what string, err error, want string) {
				if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
					t.Errorf("%s: %v, want %q", what, err, want)
				}
			}
			check("RunJob", runErr, c.runErr)
			check("interrupted", sigErr, c.sigErr)
			if ran != c.ran {
				t.Errorf("the job's function ran: %v, want %v", ran, c.ran)
			}
			if s.Done(0) != c.done {
				t.Errorf("done: %v, want %v", s.Done(0), c.done)
			}
			if _, err := os.Stat(s.recordDir(0)); !c.done && err == nil {
				t.Errorf("the job has a record directory: %v", err)
			}
			f, ferr := s.failureNote(0)
			switch {
			case ferr != nil:
				t.Errorf("failure note: %v", ferr)
			case c.note == "" && f != nil:
				t.Errorf("failure note %+v beside the record", f)
			case c.note != "" && (f == nil || f.Attempt != 1 || !strings.Contains(f.Error, c.note)):
				t.Errorf("failure note %+v, want attempt 1: %s", f, c.note)
			}
			log, _ := os.ReadFile(s.LogPath(0))
			want := 0
			if c.note != "" {
				want = 1
			}
			if n := strings.Count(string(log), "FAILED"); n != want {
				t.Errorf("the log holds %d FAILED lines, want %d:\n%s", n, want, log)
			}
			if tmps, _ := filepath.Glob(filepath.Join(s.Dir, "jobs", "work", ".tmp-*")); len(tmps) > 0 {
				t.Errorf("temporary directories left: %v", tmps)
			}
			if _, err := os.Stat(s.runningPath(0)); err == nil {
				t.Error("the running marker was left")
			}
		})
	}
}
