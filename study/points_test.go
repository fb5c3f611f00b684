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
