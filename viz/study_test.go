package viz

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/study"
)

// coverageRecord is the record of a job that measured the coverage of n test pairs whose ranks
// are uniform (a calibrated estimator).
func coverageRecord(seed uint64, n int) *study.Record {
	rng := rand.New(rand.NewPCG(seed, 3))
	ranks := make([]float64, n)
	for i := range ranks {
		ranks[i] = rng.Float64()
	}
	return &study.Record{Index: int(seed), Stage: "train", Key: fmt.Sprintf("seed=%d", seed),
		Series: map[string][]float64{"ranks": ranks, "levels": diag.Levels(19)}}
}

func TestStudyCoverage(t *testing.T) {
	a, b := coverageRecord(1, 400), coverageRecord(2, 600)
	tab := &study.Table{Records: []*study.Record{a, b}}
	got, err := StudyCoverage(tab, "NRE")
	if err != nil {
		t.Fatal(err)
	}
	want, err := diag.CoverageFromRanks(append(slices.Clone(a.Series["ranks"]), b.Series["ranks"]...), diag.Levels(19))
	if err != nil {
		t.Fatal(err)
	}
	if got.Label != "NRE" || !slices.Equal(got.Coverage, want.Coverage) || got.AUC != want.AUC || len(got.Ranks) != 1000 {
		t.Errorf("StudyCoverage = %q %v (AUC %v, %d ranks), want the curve of both rows' ranks %v (AUC %v, 1000 ranks)",
			got.Label, got.Coverage, got.AUC, len(got.Ranks), want.Coverage, want.AUC)
	}
	// The pooled curve of calibrated rows is calibrated: its AUC is within four standard errors
	// (√(1/12)/√n for n pooled ranks) of 0.
	if se := math.Sqrt(1.0/12) / math.Sqrt(1000); math.Abs(got.AUC) > 4*se {
		t.Errorf("pooled AUC of uniform ranks = %+.4f, want within %.4f of 0", got.AUC, 4*se)
	}
}

func TestStudyCoverageErrors(t *testing.T) {
	other := coverageRecord(2, 10)
	other.Series["levels"] = diag.Levels(9)
	noRanks := coverageRecord(3, 10)
	delete(noRanks.Series, "ranks")
	noLevels := coverageRecord(4, 10)
	delete(noLevels.Series, "levels")
	for _, c := range []struct {
		name string
		rows []*study.Record
		want string
	}{
		{"empty", nil, "no rows"},
		{"levels differ", []*study.Record{coverageRecord(1, 10), other}, "levels"},
		{"no ranks", []*study.Record{noRanks}, `"ranks"`},
		{"no levels", []*study.Record{noLevels}, `"levels"`},
		{"levels missing in a later row", []*study.Record{coverageRecord(1, 10), noLevels}, "levels"},
	} {
		_, err := StudyCoverage(&study.Table{Records: c.rows}, "x")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `coverage "x"`) {
			t.Errorf("%s: StudyCoverage error = %v, want one that names the curve and mentions %s", c.name, err, c.want)
		}
	}
}

func TestStudySweep(t *testing.T) {
	var tab study.Table
	for _, r := range []struct {
		budget string
		loss   float64
	}{{"400", 1}, {"200", 2}, {"400", 3}, {"200", 4}} {
		tab.Records = append(tab.Records, &study.Record{Params: map[string]string{"budget": r.budget},
			Metrics: map[string]float64{"val_loss": r.loss}})
	}
	s, err := StudySweep(&tab, "NRE", "budget", "val_loss")
	if err != nil {
		t.Fatal(err)
	}
	want := SweepSeries{Label: "NRE", Budgets: []float64{200, 400}, Values: [][]float64{{2, 4}, {1, 3}}}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("StudySweep = %+v, want %+v", s, want)
	}
	tab.Records[0].Params["budget"] = "many"
	if _, err := StudySweep(&tab, "NRE", "budget", "val_loss"); err == nil || !strings.Contains(err.Error(), "many") {
		t.Errorf("StudySweep over a non-numeric budget: error %v, want one naming the value", err)
	}
}
