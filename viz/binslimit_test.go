package viz

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestHistogramBinsLimit: CornerWith and Marginals refuse more than MaxHistogramBins
// histogram bins with the panic of their bad options, naming Bins and the limit, before they
// allocate the bins (a huge Bins was a makeslice panic, or an allocation of that many counts
// per parameter); Bins at the limit still draws.
func TestHistogramBinsLimit(t *testing.T) {
	s := correlated(1, 50, []float64{0, 1}, 1, 0.5)
	for _, c := range []struct {
		name string
		make func(bins int) *Plot
	}{
		{"Corner", func(bins int) *Plot { return CornerWith(CornerConfig{Bins: bins, Points: 10}, s) }},
		{"Marginals", func(bins int) *Plot { return Marginals(MarginalsConfig{Bins: bins}, s) }},
	} {
		for _, bins := range []int{MaxHistogramBins + 1, math.MaxInt/2 + 1} {
			func() {
				want := fmt.Sprintf("viz: %s: Bins = %d histogram bins, more than MaxHistogramBins (%d)", c.name, bins, MaxHistogramBins)
				defer func() {
					if v := fmt.Sprint(recover()); !strings.HasPrefix(v, want) {
						t.Errorf("%s with Bins = %d: recovered %q, want the panic of its options %q", c.name, bins, v, want)
					}
				}()
				c.make(bins)
			}()
		}
		noPanic(t, c.name+" at the limit", func() {
			if _, err := c.make(MaxHistogramBins).PNG(); err != nil {
				t.Errorf("%s with Bins = MaxHistogramBins: %v", c.name, err)
			}
		})
	}
}
