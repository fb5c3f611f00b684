package table

import (
	"math"
	"testing"
)

// A p-value and its level are shown in the order they are in, with as few digits as that allows.
func TestPAlpha(t *testing.T) {
	for _, tc := range []struct {
		p, alpha float64
		ps, as   string
	}{
		{0.2, 0.05, "0.2", "0.05"},
		{0.0123, 0.05, "0.0123", "0.05"},
		{0.05, 0.05, "0.05", "0.05"},
		{0.0126, 0.0125, "0.0126", "0.0125"},     // not 0.0126 > 0.013
		{0.013, 0.0125, "0.013", "0.0125"},       // not 0.013 > 0.013
		{0.05004, 0.05, "0.05004", "0.05"},       // not 0.05 > 0.05
		{0.04996, 0.05, "0.04996", "0.05"},       // not 0.05 ≤ 0.05 for a p below it
		{0.05 / 3, 0.05 / 3, "0.0167", "0.0167"}, // equal: shown equal
		{math.NaN(), 0.05, "NaN", "0.05"},
	} {
		ps, as := PAlpha(tc.p, tc.alpha)
		if ps != tc.ps || as != tc.as {
			t.Errorf("PAlpha(%v, %v) = %s, %s; want %s, %s", tc.p, tc.alpha, ps, as, tc.ps, tc.as)
		}
	}
}
