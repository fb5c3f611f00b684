package study

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// countStudy makes a study of one stage with n jobs (n values of one axis).
func countStudy(t *testing.T, n int) *Study {
	t.Helper()
	var values []string
	for v := range n {
		values = append(values, strconv.Itoa(v))
	}
	spec := &Spec{Name: "counts", Axes: []Axis{{Name: "seed", Values: values}},
		Stages: []Stage{{Name: "fit", Func: "fit"}}}
	s, err := Create(t.TempDir(), spec, "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestMessagesCountNouns: the messages of the package that count something write the noun in
// the singular for a count of 1 and in the plural for 2 ("1 Slurm round", "2 Slurm rounds").
func TestMessagesCountNouns(t *testing.T) {
	requireStudyRuns(t)
	for _, c := range []struct {
		name string
		msg  func(t *testing.T, n int) string
		want func(n int) string
	}{
		{"Slurm rounds", func(t *testing.T, n int) string {
			return fmt.Sprint(notCompleteError("counts", "dir", n, Status{}))
		}, func(n int) string { return map[int]string{1: "after 1 Slurm round ", 2: "after 2 Slurm rounds "}[n] }},
		{"Slurm rounds with failures", func(t *testing.T, n int) string {
			st := Status{Failed: []FailedJob{{Failure: Failure{Error: "boom"}}}}
			return fmt.Sprint(notCompleteError("counts", "dir", n, st))
		}, func(n int) string { return map[int]string{1: "after 1 Slurm round ", 2: "after 2 Slurm rounds "}[n] }},
		{"Results of a stage", func(t *testing.T, n int) string {
			s := countStudy(t, n)
			_, err := s.Results("fit")
			return fmt.Sprint(err)
		}, func(n int) string { return map[int]string{1: "of its 1 job;", 2: "of its 2 jobs;"}[n] }},
		{"Record out of range", func(t *testing.T, n int) string {
			_, err := countStudy(t, n).Record(n)
			return fmt.Sprint(err)
		}, func(n int) string { return map[int]string{1: "(the study has 1 job)", 2: "(the study has 2 jobs)"}[n] }},
		{"RunJob out of range", func(t *testing.T, n int) string {
			return fmt.Sprint(countStudy(t, n).RunJob(context.Background(), n))
		}, func(n int) string {
			return map[int]string{1: "the study has 1 job (0…0)", 2: "the study has 2 jobs (0…1)"}[n]
		}},
		{"bytes of source", func(t *testing.T, n int) string {
			st := Stage{Name: "fit", Func: "fit", Source: strings.Repeat("x", n)}
			return fmt.Sprint(st.validate("stages[0]", nil, map[string]bool{}))
		}, func(n int) string { return map[int]string{1: "and 1 byte of source,", 2: "and 2 bytes of source,"}[n] }},
	} {
		for _, n := range []int{1, 2} {
			if got, want := c.msg(t, n), c.want(n); !strings.Contains(got, want) {
				t.Errorf("%s, count %d: %s\nwant it to hold %q", c.name, n, got, want)
			}
		}
	}
}
