package certify

import (
	"math"
	"strings"
	"testing"
)

// TestPlanSizeOverflow gives set sizes whose sum or product overflows an int (three check sets
// of 2⁶² simulations; 2⁶² observations' score-calibration sets): plan refuses them with an
// error naming the sizes, instead of a wrapped sum that fits the budget and a plan whose sets
// are negative or larger than the budget.
func TestPlanSizeOverflow(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		nObs int
		want string
	}{
		{"check sets", Config{Simulations: math.MaxInt, TestSimulations: 500, CheckSimulations: 1 << 62}, 0, "CheckSimulations 4611686018427387904"},
		{"score calibration", Config{Simulations: math.MaxInt, TestSimulations: 500, CheckSimulations: 300, ScoreCalibrationTests: 1 << 40, Remedies: []Remedy{RemedyScoreCalibration}}, 1 << 40, "1099511627776 observations"},
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
