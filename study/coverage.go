package study

import (
	"fmt"
	"slices"
)

// PooledRanks gathers the coverage ranks of the rows, in row order, as if their test pairs were
// one test set (the ranks of several seeds of one method and budget), with the credibility
// levels they were measured at. Each row must hold the series "ranks" (the HPD ranks of its
// test pairs) and "levels", as a job records them with SetSeries. It returns an error when the
// table is empty, a row lacks either series, or two rows were measured at different levels.
// viz.StudyCoverage turns the result into a coverage curve.
func (t *Table) PooledRanks() (ranks, levels []float64, err error) {
	if t.Len() == 0 {
		return nil, nil, fmt.Errorf("study: pooled ranks: the table has no rows")
	}
	first := t.Records[0]
	levels, ok := first.Series["levels"]
	if !ok {
		return nil, nil, fmt.Errorf("study: pooled ranks: %s has no series \"levels\"", recordName(first))
	}
	for _, r := range t.Records[1:] {
		if l, ok := r.Series["levels"]; !ok || !slices.Equal(l, levels) {
			return nil, nil, fmt.Errorf("study: pooled ranks: %s was measured at levels %v, %s at %v; pool only curves of the same levels",
				recordName(r), l, recordName(first), levels)
		}
	}
	ranks, err = t.Series("ranks")
	if err != nil {
		return nil, nil, fmt.Errorf("study: pooled ranks: %w", err)
	}
	return ranks, slices.Clone(levels), nil
}

// recordName names the job of a record.
func recordName(r *Record) string { return label(r.Index, r.Stage, r.Key) }
