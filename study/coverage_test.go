package study

import (
	"slices"
	"strings"
	"testing"
)

// ranksRecord is the record of a job that measured n test pairs at levels.
func ranksRecord(seed, n int, levels []float64) *Record {
	ranks := make([]float64, n)
	for i := range ranks {
		ranks[i] = float64(seed) + float64(i)/float64(n)
	}
	return &Record{Index: seed, Stage: "train", Key: "seed=" + string(rune('0'+seed)),
		Series: map[string][]float64{"ranks": ranks, "levels": levels}}
}

func TestTablePooledRanks(t *testing.T) {
	levels := []float64{0.25, 0.5, 0.75}
	a, b := ranksRecord(1, 4, levels), ranksRecord(2, 6, levels)
	ranks, got, err := (&Table{Records: []*Record{a, b}}).PooledRanks()
	if err != nil {
		t.Fatal(err)
	}
	if want := append(slices.Clone(a.Series["ranks"]), b.Series["ranks"]...); !slices.Equal(ranks, want) || !slices.Equal(got, levels) {
		t.Errorf("PooledRanks = %v at %v, want %v at %v (both rows' ranks in row order)", ranks, got, want, levels)
	}
	got[0] = 9
	if a.Series["levels"][0] != 0.25 {
		t.Error("PooledRanks returned the record's own levels slice; changing the result changed the record")
	}
}

func TestTablePooledRanksErrors(t *testing.T) {
	levels := []float64{0.5}
	other := ranksRecord(2, 10, []float64{0.25, 0.75})
	noRanks := ranksRecord(3, 10, levels)
	delete(noRanks.Series, "ranks")
	noLevels := ranksRecord(4, 10, levels)
	delete(noLevels.Series, "levels")
	for _, c := range []struct {
		name string
		rows []*Record
		want string
	}{
		{"empty", nil, "no rows"},
		{"levels differ", []*Record{ranksRecord(1, 10, levels), other}, "levels"},
		{"no ranks", []*Record{noRanks}, `"ranks"`},
		{"no levels", []*Record{noLevels}, `"levels"`},
		{"levels missing in a later row", []*Record{ranksRecord(1, 10, levels), noLevels}, "levels"},
	} {
		_, _, err := (&Table{Records: c.rows}).PooledRanks()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: PooledRanks error = %v, want one that mentions %s", c.name, err, c.want)
		}
	}
}
