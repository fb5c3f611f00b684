package diag

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestVerdictCountsOfOne: verdicts and summaries word a count of one in the singular. Before,
// a predictive check of one data value read "Bonferroni over 1 values", a coverage curve
// outside the pointwise band at one level on each side "1 levels below and 1 above", and a
// report of one parameter "over 1 parameters" and "1 test pairs with NaN or infinite values".
func TestVerdictCountsOfOne(t *testing.T) {
	for _, c := range []struct {
		name string
		text func(t *testing.T) string
		want []string
	}{
		{"predictive check of one value", predictiveOfOneValue,
			[]string{"(Bonferroni over 1 value and 2 joint tests)"}},
		{"coverage outside the pointwise band at one level each side", coverageOneLevelEachSide,
			[]string{"; 1 level below and 1 above the pointwise 95% band"}},
		{"report of one parameter, one pair left out", reportOfOneParameter,
			[]string{"smallest χ² p-value 0.5 over 1 parameter\n", "left out                     1 test pair with NaN or infinite values\n"}},
		{"note of one pair left out", func(*testing.T) string { return droppedNote(1) },
			[]string{"1 test pair with NaN or infinite values left out\n"}},
		{"note of two pairs left out", func(*testing.T) string { return droppedNote(2) },
			[]string{"2 test pairs with NaN or infinite values left out\n"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := c.text(t)
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("want %q in:\n%s", w, got)
				}
			}
		})
	}
}

// predictiveOfOneValue is the verdict of a predictive check of one data value against 50
// simulations, too few to reach the per-test level 0.05/3.
func predictiveOfOneValue(t *testing.T) string {
	x := mat.NewDense(50, 1, nil)
	for i := range 50 {
		x.Set(i, 0, float64(i))
	}
	r, err := PredictiveFromSimulations(x, []float64{10}, PredictiveConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return r.Verdict()
}

// coverageOneLevelEachSide is the verdict of a coverage curve on 400 pairs outside the
// pointwise band, inside the simultaneous one, at one level below and one above.
func coverageOneLevelEachSide(t *testing.T) string {
	levels := Levels(19)
	shape := map[int]string{3: "in-low", 4: "mid-low", 14: "mid-high", 15: "in-high"}
	r, err := CoverageFromRanks(ranksWithCoverage(400, levels, shapedCoverage(400, levels, shape)), levels)
	if err != nil {
		t.Fatal(err)
	}
	return r.Verdict()
}

// reportOfOneParameter is the text of a report built by hand for one parameter, with one test
// pair left out.
func reportOfOneParameter(t *testing.T) string {
	levels := Levels(19)
	cov, err := CoverageFromRanks(ranksWithCoverage(400, levels, shapedCoverage(400, levels, nil)), levels)
	if err != nil {
		t.Fatal(err)
	}
	r := &Report{N: 400, Dropped: 1, Coverage: cov,
		Marginal: &MarginalResult{Levels: []float64{0.9}, Coverage: [][]float64{{0.9}}},
		SBC:      &SBCResult{PValues: []float64{0.5}},
		TARP:     &TARPResult{},
		LogProb:  &LogProbResult{N: 400, Prior: math.NaN()},
	}
	return r.String()
}
