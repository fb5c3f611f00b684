package study_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/study"
)

// mustPanic calls f and returns the value it panicked with (nil when it did not).
func mustPanic(f func()) (p any) {
	defer func() { p = recover() }()
	f()
	return nil
}

// TestMustForms: MustOpen, MustCreate and MustResults return what Open, Create and Results
// return, and panic with their error itself (an error value, so errors.Is still answers), for
// notebook cells that would otherwise check err after each call.
func TestMustForms(t *testing.T) {
	study.RequireStudyRuns(t)
	spec := &study.Spec{Name: "must", Axes: []study.Axis{{Name: "x", Values: study.Ints(1, 2)}},
		Stages: []study.Stage{{Name: "square", Func: "must-square"}}}
	study.Register("must-square", func(j *study.Job) error { j.Set("y", j.Float("x")*j.Float("x")); return nil })
	dir := filepath.Join(t.TempDir(), "s")
	s := study.MustCreate(dir, spec, "")
	if got := study.MustOpen(dir); got.Dir != s.Dir || len(got.Jobs) != 2 {
		t.Errorf("MustOpen(%s) = %+v, want the study of %d jobs created there", dir, got, len(s.Jobs))
	}
	for _, c := range []struct {
		name string
		call func()
		want string
	}{
		{"MustOpen", func() { study.MustOpen(t.TempDir()) }, "has no manifest.json"},
		{"MustCreate", func() { study.MustCreate(dir, &study.Spec{Name: "other", Axes: spec.Axes, Stages: spec.Stages}, "") }, "holds a different study"},
		{"MustResults", func() { s.MustResults("square") }, "has records of 0 of its 2 jobs"},
		{"MustResults of no stage", func() { s.MustResults("nope") }, `no stage "nope"`},
	} {
		p := mustPanic(c.call)
		err, ok := p.(error)
		if !ok || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s panicked with %#v, want an error holding %q", c.name, p, c.want)
		}
	}
	if err := s.Run(context.Background(), &study.Local{}); err != nil {
		t.Fatal(err)
	}
	if tab := s.MustResults("square"); tab.Len() != 2 {
		t.Errorf("MustResults after the run: %d rows, want 2", tab.Len())
	}
}
