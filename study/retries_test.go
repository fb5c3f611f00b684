package study_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/study"
)

// TestLocalNegativeRetries: a Local executor with Retries below zero refuses to run, naming the
// field, instead of trying no job at all and reporting the stage complete.
func TestLocalNegativeRetries(t *testing.T) {
	spec := &study.Spec{Name: "retries", Axes: []study.Axis{{Name: "v", Values: []string{"large"}}},
		Stages: []study.Stage{{Name: "work", Func: "series"}}}
	s, err := study.Create(t.TempDir(), spec, "")
	if err != nil {
		t.Fatal(err)
	}
	seriesCalls.Store(0)
	err = s.Run(context.Background(), &study.Local{Workers: 1, Retries: -1})
	if err == nil || !strings.Contains(err.Error(), "Retries = -1") {
		t.Fatalf("Run with Retries -1: %v, want an error naming Retries = -1", err)
	}
	if n := seriesCalls.Load(); n != 0 {
		t.Errorf("%d jobs ran", n)
	}
	if st := s.Status(); st.Count(study.Missing) != 1 {
		t.Errorf("status %s, want the job missing", st.Line())
	}
	if err := s.Run(context.Background(), &study.Local{Workers: 1}); err != nil {
		t.Fatalf("Run with Retries 0 afterwards: %v", err)
	}
}
