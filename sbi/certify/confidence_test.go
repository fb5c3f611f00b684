package certify

import (
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/diag"
)

// TestDecisionNamesConfidence: the decision's sentence and its plot name the (1 − 2α)
// interval as the confidence it is, a 99.9% interval not as "100%".
func TestDecisionNamesConfidence(t *testing.T) {
	for _, c := range []struct {
		conf float64
		want string
	}{
		{0.95, "95% interval"},
		{0.9, "90% interval"},
		{0.995, "99.5% interval"},
		{0.999, "99.9% interval"},
		{0.9999, "99.99% interval"},
	} {
		levels := DefaultLevels()
		cov := &diag.CoverageResult{Levels: levels, N: 400, Coverage: levels}
		d, err := Decide(cov, Target{Alpha: (1 - c.conf) / 2})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(d.Reason, c.want) {
			t.Errorf("confidence %v: reason %q, want it to name the %q", c.conf, d.Reason, c.want)
		}
		if svg := coverageSVG(d.Target, nil, d); !strings.Contains(svg, c.want) {
			t.Errorf("confidence %v: plot %q, want it to name the %q", c.conf, svg, c.want)
		}
	}
}
