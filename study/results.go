package study

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gosbi/gosbi/internal/text"
)

// Table is the records of a study's finished jobs, one row per job.
type Table struct {
	Records []*Record
}

// Results loads the records of a stage's jobs, in manifest order. A stage some of whose jobs
// have no valid record is an error naming them, so that no summary of the table (a coverage
// curve pooled over seeds, a mean) covers fewer jobs than the spec asked for without saying
// so: run the study again, or read the finished jobs with PartialResults.
func (s *Study) Results(stage string) (*Table, error) {
	t, missing, err := s.PartialResults(stage)
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		return nil, s.incompleteError(stage, t.Len(), missing)
	}
	return t, nil
}

// MustResults is Results for notebook cells: it panics with Results' error.
func (s *Study) MustResults(stage string) *Table { return must(s.Results(stage)) }

// incompleteError says that a stage has records of done of its jobs, and which are missing
// and why (the first few).
func (s *Study) incompleteError(stage string, done int, missing []JobInfo) error {
	var lines []string
	for k, j := range missing {
		if k == 5 {
			lines = append(lines, fmt.Sprintf("… and %d more", len(missing)-k))
			break
		}
		lines = append(lines, fmt.Sprintf("%s: %s", j, s.state(j.Index, nil, nil, nil).state))
	}
	return fmt.Errorf("study %s: stage %q has records of %d of its %s; run the study again (`gosbi study status %s` says why the others have none), or read the finished ones with PartialResults:\n  %s",
		s.Spec.Name, stage, done, text.Count(done+len(missing), "job"), s.Dir, strings.Join(lines, "\n  "))
}

// PartialResults loads the records of a stage's finished jobs, in manifest order, and lists
// the jobs of the stage the table lacks: those without a valid record (not run yet, failed,
// running, or whose record is invalid; Status says which).
func (s *Study) PartialResults(stage string) (*Table, []JobInfo, error) {
	if _, k := s.stage(stage); k < 0 {
		return nil, nil, fmt.Errorf("study: no stage %q in study %s (stages: %v)", stage, s.Spec.Name, s.stageNames())
	}
	t := &Table{}
	var missing []JobInfo
	for _, i := range s.StageJobs(stage) {
		if !s.Done(i) {
			missing = append(missing, s.Jobs[i])
			continue
		}
		r, err := s.Record(i)
		if err != nil {
			return nil, nil, err
		}
		t.Records = append(t.Records, r)
	}
	return t, missing, nil
}

func (s *Study) stageNames() []string {
	var out []string
	for _, st := range s.Spec.Stages {
		out = append(out, st.Name)
	}
	return out
}

// Len is the number of rows.
func (t *Table) Len() int { return len(t.Records) }

// Where returns the rows whose parameter name has the value.
func (t *Table) Where(name, value string) *Table {
	out := &Table{}
	for _, r := range t.Records {
		if r.Params[name] == value {
			out.Records = append(out.Records, r)
		}
	}
	return out
}

// Values returns a metric of every row; a row without it is an error.
func (t *Table) Values(metric string) ([]float64, error) {
	out := make([]float64, len(t.Records))
	for k, r := range t.Records {
		v, err := r.Metric(metric)
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}

// Series concatenates a vector metric over the rows (ranks pooled over seeds, say).
func (t *Table) Series(name string) ([]float64, error) {
	var out []float64
	for _, r := range t.Records {
		v, ok := r.Series[name]
		if !ok {
			return nil, fmt.Errorf("study: %s has no series %q (%s; a job records a series with Job.SetSeries)",
				label(r.Index, r.Stage, r.Key), name, recordedNames(r.Series, "series"))
		}
		out = append(out, v...)
	}
	return out, nil
}

// Distinct returns the values a parameter takes, numerically sorted when all are numbers.
func (t *Table) Distinct(name string) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range t.Records {
		if v, ok := r.Params[name]; ok && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		x, e1 := strconv.ParseFloat(out[a], 64)
		y, e2 := strconv.ParseFloat(out[b], 64)
		if e1 == nil && e2 == nil {
			return x < y
		}
		return out[a] < out[b]
	})
	return out
}

// Points collects a metric against a numeric parameter (the budget): the parameter's distinct
// values in increasing order, and for each the metric of every row with that value.
// viz.StudySweep turns them into a series of viz.BudgetSweep. It returns an error when the
// table is empty, a row lacks the parameter (an axis of its stage) or the metric, or a value
// of the parameter is not a number.
func (t *Table) Points(param, metric string) (xs []float64, values [][]float64, err error) {
	if t.Len() == 0 {
		return nil, nil, fmt.Errorf("study: %s against %s: the table has no rows", metric, param)
	}
	for _, r := range t.Records {
		if _, ok := r.Params[param]; !ok {
			names := make([]string, 0, len(r.Params))
			for k := range r.Params {
				names = append(names, k)
			}
			sort.Strings(names)
			return nil, nil, fmt.Errorf("study: %s has no parameter %q to sweep over (its parameters: %v); a job's record holds the axes of its stage",
				label(r.Index, r.Stage, r.Key), param, names)
		}
	}
	for _, v := range t.Distinct(param) {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, nil, fmt.Errorf("study: parameter %s = %q, expected a number to sweep over", param, v)
		}
		vals, err := t.Where(param, v).Values(metric)
		if err != nil {
			return nil, nil, err
		}
		xs = append(xs, x)
		values = append(values, vals)
	}
	return xs, values, nil
}
