package viz

import (
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/diag"
)

// TestCoverageAllNil: results that are all nil (the result of a failed call, its error
// ignored) drew the diagonal alone, with the legend entry "calibrated", a figure that reads as
// a verdict; rendering it is an error saying there is no curve. A nil beside a result is
// skipped, and Coverage() of nothing stays the empty axes.
func TestCoverageAllNil(t *testing.T) {
	full, err := diag.CoverageFromRanks(ranks(1, 200, 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		results []*diag.CoverageResult
		want    string // "" for a figure that renders
	}{
		{"one nil", []*diag.CoverageResult{nil}, "all 1 results are nil"},
		{"two nil", []*diag.CoverageResult{nil, nil}, "all 2 results are nil"},
		{"nil beside a result", []*diag.CoverageResult{nil, full}, ""},
		{"no results", nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Coverage(tc.results...).PNG()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("render: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("render error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
