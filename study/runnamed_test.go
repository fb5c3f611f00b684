package study_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/study"
)

func TestRunNamed(t *testing.T) {
	study.RequireStudyRuns(t)
	for _, c := range []struct {
		executor string
		params   map[string]string
		err      string // "" when the study must end complete
	}{
		{"local", nil, ""},
		{"read", nil, "is not complete (work 0/4 done"},
		{"local", map[string]string{"failx": "2"}, "failed"},
		{"cluster", nil, `executor "cluster", expected local, slurm or read`},
	} {
		s, err := study.Create(t.TempDir(), workSpec(c.params), "")
		if err != nil {
			t.Fatal(err)
		}
		var last *study.Status
		subs, err := s.RunNamed(context.Background(), c.executor, func(st *study.Status) { last = st })
		if len(subs) != 0 {
			t.Errorf("%s: %d Slurm submissions, want none", c.executor, len(subs))
		}
		if c.err == "" {
			if err != nil || last == nil || !last.Complete() || !s.Status().Complete() {
				t.Errorf("%s: RunNamed = %v, last progress %v; want a complete study", c.executor, err, last)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s %v: RunNamed error %v, want one that says %q", c.executor, c.params, err, c.err)
		}
		if c.executor != "cluster" && (last == nil || last.Complete()) {
			t.Errorf("%s %v: last progress %v, want the incomplete status", c.executor, c.params, last)
		}
	}
}
