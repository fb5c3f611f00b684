package study

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/diag"
)

// coverageRecord is the record of a job that measured the coverage of n test pairs whose ranks
// are uniform (a calibrated estimator).
func coverageRecord(seed uint64, n int) *Record {
	rng := rand.New(rand.NewPCG(seed, 3))
	ranks := make([]float64, n)
	for i := range ranks {
		ranks[i] = rng.Float64()
	}
	return &Record{Index: int(seed), Stage: "train", Key: "seed=" + string(rune('0'+seed)),
		Series: map[string][]float64{"ranks": ranks, "levels": diag.Levels(19)}}
}

func TestTableCoverage(t *testing.T) {
	a, b := coverageRecord(1, 400), coverageRecord(2, 600)
	tab := &Table{Records: []*Record{a, b}}
	got, err := tab.Coverage("NRE")
	if err != nil {
		t.Fatal(err)
	}
	want, err := diag.CoverageFromRanks(append(slices.Clone(a.Series["ranks"]), b.Series["ranks"]...), diag.Levels(19))
	if err != nil {
		t.Fatal(err)
	}
	if got.Label != "NRE" || !slices.Equal(got.Coverage, want.Coverage) || got.AUC != want.AUC || len(got.Ranks) != 1000 {
		t.Errorf("Coverage = %q %v (AUC %v, %d ranks), want the curve of both rows' ranks %v (AUC %v, 1000 ranks)",
			got.Label, got.Coverage, got.AUC, len(got.Ranks), want.Coverage, want.AUC)
	}
	// The pooled curve of calibrated rows is calibrated: its AUC is within four standard errors
	// (√(1/12)/√n for n pooled ranks) of 0, and tighter than either row's alone would allow.
	if se := math.Sqrt(1.0/12) / math.Sqrt(1000); math.Abs(got.AUC) > 4*se {
		t.Errorf("pooled AUC of uniform ranks = %+.4f, want within %.4f of 0", got.AUC, 4*se)
	}
}

func TestTableCoverageErrors(t *testing.T) {
	other := coverageRecord(2, 10)
	other.Series["levels"] = diag.Levels(9)
	noRanks := coverageRecord(3, 10)
	delete(noRanks.Series, "ranks")
	noLevels := coverageRecord(4, 10)
	delete(noLevels.Series, "levels")
	for _, c := range []struct {
		name string
		rows []*Record
		want string
	}{
		{"empty", nil, "no rows"},
		{"levels differ", []*Record{coverageRecord(1, 10), other}, "levels"},
		{"no ranks", []*Record{noRanks}, `"ranks"`},
		{"no levels", []*Record{noLevels}, `"levels"`},
		{"levels missing in a later row", []*Record{coverageRecord(1, 10), noLevels}, "levels"},
	} {
		_, err := (&Table{Records: c.rows}).Coverage("x")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Coverage error = %v, want one that mentions %s", c.name, err, c.want)
		}
	}
}
