package study_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/study"
)

// TestPointsMissingParameter: Table.Points refuses a parameter that a row lacks (a misspelt
// name, a spec constant rather than an axis) and an empty table, instead of returning no
// points, which a sweep plot draws as nothing.
func TestPointsMissingParameter(t *testing.T) {
	row := func(i int, params map[string]string) *study.Record {
		return &study.Record{Index: i, Stage: "train", Key: "k", Params: params, Metrics: map[string]float64{"m": float64(i)}}
	}
	full := &study.Table{Records: []*study.Record{row(0, map[string]string{"budget": "100"}), row(1, map[string]string{"budget": "200"})}}
	partial := &study.Table{Records: []*study.Record{row(0, map[string]string{"budget": "100"}), row(1, map[string]string{"seed": "1"})}}
	for _, c := range []struct {
		name  string
		t     *study.Table
		param string
		want  string
	}{
		{"misspelt", full, "budjet", `job 0 (train k) has no parameter "budjet"`},
		{"one row lacks it", partial, "budget", `job 1 (train k) has no parameter "budget"`},
		{"empty table", &study.Table{}, "budget", "the table has no rows"},
	} {
		xs, vals, err := c.t.Points(c.param, "m")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Points = %v, %v, %v; want an error containing %q", c.name, xs, vals, err, c.want)
		}
	}
	xs, vals, err := full.Points("budget", "m")
	if err != nil || !slices.Equal(xs, []float64{100, 200}) || len(vals) != 2 || vals[1][0] != 1 {
		t.Errorf("Points = %v, %v, %v", xs, vals, err)
	}
}

// TestMissingMetricNamesTheRecorded: asking a record or a table for a metric or series that
// a job did not record (a misspelt name) gives an error listing what the job recorded and
// where names come from, so that the caller can correct the name without opening the record.
func TestMissingMetricNamesTheRecorded(t *testing.T) {
	rec := &study.Record{Index: 3, Stage: "fit", Key: "budget=100",
		Metrics: map[string]float64{"logprob": -1, "auc": 0.1},
		Series:  map[string][]float64{"ranks": {0.5}}}
	tab := &study.Table{Records: []*study.Record{rec}}
	none := &study.Table{Records: []*study.Record{{Index: 0, Stage: "fit", Key: "k"}}}
	for _, c := range []struct {
		name string
		do   func() error
		want []string
	}{
		{"Record.Metric", func() error { _, err := rec.Metric("logprb"); return err },
			[]string{`no metric "logprb"`, "[auc logprob]", "Job.Set"}},
		{"Table.Values", func() error { _, err := tab.Values("logprb"); return err },
			[]string{`no metric "logprb"`, "[auc logprob]"}},
		{"Table.Series", func() error { _, err := tab.Series("rank"); return err },
			[]string{`no series "rank"`, "[ranks]", "Job.SetSeries"}},
		{"no metrics at all", func() error { _, err := none.Values("m"); return err },
			[]string{`no metric "m"`, "recorded none"}},
	} {
		err := c.do()
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %v, want one containing %q", c.name, err, w)
			}
		}
	}
}
