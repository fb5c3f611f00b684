package diag

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestSizeProductsOverflow asks for sizes whose product overflows an int, 32 or 64 bits
// (MaxInt/4 + 1 draws of 4 parameters wrap): each estimator refuses them with an error naming
// the sizes before it asks for the draws or allocates, instead of an index out of range on a wrapped
// allocation (the sample-based estimators) or after training every classifier (L-C2ST).
func TestSizeProductsOverflow(t *testing.T) {
	m := gaussModel{dim: 4, tau: 2, s: 1, width: 1}
	theta, x := m.simulate(1, 20)
	huge := math.MaxInt/4 + 1
	lc2st := func(cfg LC2STConfig) func() error {
		return func() error {
			cfg.MaxEpochs = 1
			_, err := NewLC2ST(m, theta, x, cfg)
			return err
		}
	}
	cases := []struct {
		name string
		run  func() error
		want string
	}{
		{"RankCoverage", func() error { _, err := RankCoverage(m, theta, x, RankConfig{Samples: huge}); return err }, fmt.Sprintf("Samples = %d draws of 4 parameters", huge)},
		{"SBC", func() error { _, err := SBC(m, theta, x, RankConfig{Samples: huge}); return err }, fmt.Sprintf("Samples = %d draws of 4 parameters", huge)},
		{"TARP", func() error { _, err := TARP(m, theta, x, RankConfig{Samples: math.MaxInt}); return err }, "draws of 4 parameters"},
		{"L-C2ST Evals", lc2st(LC2STConfig{Null: 1, Evals: huge}), fmt.Sprintf("Evals = %d draws", huge)},
		{"L-C2ST Null", lc2st(LC2STConfig{Null: math.MaxInt, Evals: 10}), fmt.Sprintf("Null = %d", math.MaxInt)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.run()
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "more values than") {
				t.Fatalf("error %v, want one naming %q and saying they are more values than can be held", err, c.want)
			}
		})
	}
}
