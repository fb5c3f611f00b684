package study_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gosbi/gosbi/study"
)

// seriesCalls counts the runs of the "series" job.
var seriesCalls atomic.Int64

// seriesValues are the series the "series" job records, by the value of its axis v.
var seriesValues = map[string][]float64{
	"large": {1e308, 1e308},                                       // finite, but their sum overflows
	"mixed": {math.MaxFloat64, math.MaxFloat64, -math.MaxFloat64}, // finite; the running sum overflows
	"inf":   {1, math.Inf(1)},
	"nan":   {math.NaN(), 2},
}

func init() {
	study.Register("series", func(j *study.Job) error {
		seriesCalls.Add(1)
		j.SetSeries("s", seriesValues[j.String("v")])
		return nil
	})
}

// TestSeriesFiniteValues: a job's series is recorded when every value is finite, even when
// their sum overflows, and refused, naming the series, when a value is NaN or infinite.
func TestSeriesFiniteValues(t *testing.T) {
	study.RequireStudyRuns(t)
	for _, c := range []struct {
		v   string
		bad bool
	}{{"large", false}, {"mixed", false}, {"inf", true}, {"nan", true}} {
		t.Run(c.v, func(t *testing.T) {
			spec := &study.Spec{Name: "series", Axes: []study.Axis{{Name: "v", Values: []string{c.v}}},
				Stages: []study.Stage{{Name: "work", Func: "series"}}}
			s, err := study.Create(t.TempDir(), spec, "")
			if err != nil {
				t.Fatal(err)
			}
			err = s.Run(context.Background(), &study.Local{Workers: 1})
			if c.bad {
				if err == nil || !strings.Contains(err.Error(), "series s holds a non-finite value") {
					t.Fatalf("Run: %v, want the series refused", err)
				}
				if s.Done(0) {
					t.Error("the job has a record")
				}
				return
			}
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			r, err := s.Record(0)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Series["s"]; !slices.Equal(got, seriesValues[c.v]) {
				t.Errorf("recorded series %v, want %v", got, seriesValues[c.v])
			}
		})
	}
}
