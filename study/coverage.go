package study

import (
	"fmt"
	"slices"

	"github.com/gosbi/gosbi/sbi/diag"
)

// Coverage pools the expected coverage of the rows into one curve, as if their test pairs
// were one test set: the curve of several seeds of one method and budget. Each row must hold
// the series "ranks" (the HPD ranks of its test pairs, diag.CoverageResult.Ranks) and "levels"
// (its credibility levels), as a job records them with SetSeries; the curve is
// diag.CoverageFromRanks of all ranks, in row order, at those levels, labelled label. It
// returns an error when the table is empty, a row lacks either series, or two rows were
// measured at different levels.
func (t *Table) Coverage(label string) (*diag.CoverageResult, error) {
	if t.Len() == 0 {
		return nil, fmt.Errorf("study: coverage %q: the table has no rows", label)
	}
	first := t.Records[0]
	levels, ok := first.Series["levels"]
	if !ok {
		return nil, fmt.Errorf("study: coverage %q: %s has no series \"levels\"", label, recordName(first))
	}
	for _, r := range t.Records[1:] {
		if l, ok := r.Series["levels"]; !ok || !slices.Equal(l, levels) {
			return nil, fmt.Errorf("study: coverage %q: %s was measured at levels %v, %s at %v; pool only curves of the same levels",
				label, recordName(r), l, recordName(first), levels)
		}
	}
	ranks, err := t.Series("ranks")
	if err != nil {
		return nil, fmt.Errorf("study: coverage %q: %w", label, err)
	}
	c, err := diag.CoverageFromRanks(ranks, levels)
	if err != nil {
		return nil, fmt.Errorf("study: coverage %q: %w", label, err)
	}
	c.Label = label
	return c, nil
}

// recordName names the job of a record.
func recordName(r *Record) string { return label(r.Index, r.Stage, r.Key) }
