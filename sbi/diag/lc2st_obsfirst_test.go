package diag

import (
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gosbi/gosbi/sbi"
)

// countingModel is gaussModel that counts the posteriors asked of it, the work L-C2ST's
// training does for every calibration pair.
type countingModel struct {
	gaussModel
	posteriors *atomic.Int64
}

func (m countingModel) Posterior(x []float64) sbi.Posterior {
	m.posteriors.Add(1)
	return m.gaussModel.Posterior(x)
}

// TestLocalC2STRefusesObservationFirst: LocalC2ST refuses an observation it cannot test (the
// wrong number of values, a NaN or an infinity) before it trains its classifiers, whose
// training takes minutes at sbi's defaults, so that a typo costs no training; the error says
// what was expected.
func TestLocalC2STRefusesObservationFirst(t *testing.T) {
	m := countingModel{gaussModel{dim: 2, tau: 2, s: 1, width: 1}, new(atomic.Int64)}
	theta, x := m.simulate(3, 50)
	cfg := lc2stCheap.cfg
	cfg.Seed = 1
	for _, tc := range []struct {
		name string
		xo   []float64
		want string
	}{
		{"too short", []float64{0.5}, "has 1 values, expected 2"},
		{"too long", []float64{0.5, 1, 2}, "has 3 values, expected 2"},
		{"NaN", []float64{0.5, math.NaN()}, "NaN or infinite"},
		{"Inf", []float64{math.Inf(-1), 0.5}, "NaN or infinite"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m.posteriors.Store(0)
			_, err := LocalC2ST(m, theta, x, tc.xo, cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("observation %v: error %v, want one containing %q", tc.xo, err, tc.want)
			}
			if n := m.posteriors.Load(); n != 0 {
				t.Errorf("observation %v: the classifiers were trained (%d posteriors asked) before it was refused", tc.xo, n)
			}
		})
	}
}
