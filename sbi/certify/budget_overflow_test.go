package certify

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestPlanSizeOverflow gives set sizes whose sum or product overflows an int, sized from
// MaxInt so that they do on 32-bit and 64-bit platforms alike (three check sets of MaxInt/2 + 1
// simulations; 2¹⁶ observations' score-calibration sets of MaxInt/2¹² tests): plan refuses them
// with an error naming the sizes, instead of a wrapped sum that fits the budget and a plan whose
// sets are negative or larger than the budget.
func TestPlanSizeOverflow(t *testing.T) {
	check := math.MaxInt/2 + 1
	cases := []struct {
		name string
		cfg  Config
		nObs int
		want string
	}{
		{"check sets", Config{Simulations: math.MaxInt, TestSimulations: 500, CheckSimulations: check}, 0, fmt.Sprintf("CheckSimulations %d", check)},
		{"score calibration", Config{Simulations: math.MaxInt, TestSimulations: 500, CheckSimulations: 300, ScoreCalibrationTests: math.MaxInt >> 12, Remedies: []Remedy{RemedyScoreCalibration}}, 1 << 16, "65536 observations"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, _, err := plan(c.cfg.withDefaults(), false, c.nObs, false)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "more simulations than") {
				t.Fatalf("plan = %+v, error %v; want an error naming %q and saying they are more simulations than an int counts", b, err, c.want)
			}
		})
	}
}
