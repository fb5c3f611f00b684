package viz

import (
	"fmt"

	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/study"
)

// StudySweep collects a metric of a study's table against a numeric parameter (the budget) as
// one series of BudgetSweep: a point per value of the parameter, holding the metric of every
// row with that value (the seeds of one method, say). See study.Table.Points.
func StudySweep(t *study.Table, label, param, metric string) (SweepSeries, error) {
	xs, values, err := t.Points(param, metric)
	if err != nil {
		return SweepSeries{Label: label}, fmt.Errorf("viz: sweep %q: %w", label, err)
	}
	return SweepSeries{Label: label, Budgets: xs, Values: values}, nil
}

// MustStudySweep is StudySweep for notebook cells: it returns the result alone and panics with
// StudySweep's error.
func MustStudySweep(t *study.Table, label, param, metric string) SweepSeries {
	return must(StudySweep(t, label, param, metric))
}

// StudyCoverage pools the expected coverage of a study table's rows into one curve labelled
// label, as if their test pairs were one test set: the curve of several seeds of one method
// and budget, diag.CoverageFromRanks of all their ranks. Each row must hold the series "ranks"
// and "levels" (see study.Table.PooledRanks); the error says which row does not.
func StudyCoverage(t *study.Table, label string) (*diag.CoverageResult, error) {
	ranks, levels, err := t.PooledRanks()
	if err != nil {
		return nil, fmt.Errorf("viz: coverage %q: %w", label, err)
	}
	c, err := diag.CoverageFromRanks(ranks, levels)
	if err != nil {
		return nil, fmt.Errorf("viz: coverage %q: %w", label, err)
	}
	c.Label = label
	return c, nil
}

// MustStudyCoverage is StudyCoverage for notebook cells: it returns the result alone and panics
// with StudyCoverage's error.
func MustStudyCoverage(t *study.Table, label string) *diag.CoverageResult {
	return must(StudyCoverage(t, label))
}
