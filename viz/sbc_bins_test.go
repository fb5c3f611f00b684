package viz_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/viz"
)

// The χ² p-value in an SBC panel's title is the test's of diag.SBC, on its own bins: where
// the panel draws another number of bins (the test keeps about 20 counts a bin, the histogram
// about 10 and at most 30 bins), the title names the test's bins, so that the picture and the
// number it carries are not read as one; where they are the same, it names none.
func TestSBCRanksTitleNamesTestBins(t *testing.T) {
	cases := []struct {
		pairs int
		same  bool // whether the test's bins are those drawn
	}{
		{60, false},   // the walk's case: the test on 2 bins, the histogram of 5
		{500, true},   // both 25
		{5000, false}, // the test on 100 bins, the histogram of 25
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%d pairs", c.pairs), func(t *testing.T) {
			theta, x := pairs(c.pairs)
			r, err := diag.SBC(narrow{}, theta, x, diag.RankConfig{Samples: 99, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			drawn := viz.DisplayBins(r.Samples, c.pairs)
			if (drawn == r.Bins) != c.same {
				t.Fatalf("the test's %d bins and the %d drawn: the case expects them the same: %v", r.Bins, drawn, c.same)
			}
			svg, err := viz.SBCRanks(r).SVG()
			if err != nil {
				t.Fatal(err)
			}
			named := fmt.Sprintf("χ² on %d bins", r.Bins)
			if !c.same && !strings.Contains(string(svg), named) {
				t.Errorf("the panel draws %d bins and its title does not say that its p-value is the %s", drawn, named)
			}
			if c.same && strings.Contains(string(svg), "bins") {
				t.Errorf("the title names bins although the %d drawn are the test's", drawn)
			}
		})
	}
}
