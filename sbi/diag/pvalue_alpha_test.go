package diag

import (
	"strings"
	"testing"
)

// A verdict that compares a p-value with its level shows both with enough digits to be in the
// order it states: never "p = 0.05 > α = 0.05" or "0.013 > α = 0.013".
func TestVerdictShowsPValueOnItsSide(t *testing.T) {
	for _, tc := range []struct {
		name    string
		verdict string
		want    string
	}{
		{"misspecification, level 0.0125", (&MisspecResult{PValue: 0.013, Alpha: 0.0125, Calibration: 999}).Verdict(), "p = 0.013 > α = 0.0125"},
		{"misspecification, p just above", (&MisspecResult{PValue: 0.05004, Alpha: 0.05, Calibration: 19999}).Verdict(), "p = 0.05004 > α = 0.05"},
		{"misspecification, too few", (&MisspecResult{PValue: 0.5, Alpha: 0.0499, Calibration: 19}).Verdict(), "smallest p-value is 0.05 > α = 0.0499"},
		{"L-C2ST, p just above", (&LC2STResult{PValue: 0.05004, Alpha: 0.05, Null: make([]float64, 19999)}).Verdict(), "p = 0.05004 > α = 0.05"},
		{"L-C2ST, p just below", (&LC2STResult{PValue: 0.04996, Alpha: 0.05, Null: make([]float64, 19999)}).Verdict(), "p = 0.04996 ≤ α = 0.05"},
		{"L-C2ST, too few", (&LC2STResult{PValue: 0.5, Alpha: 0.01265, Null: make([]float64, 78)}).Verdict(), "smallest p-value is 0.0127 > α = 0.0126"},
	} {
		if !strings.Contains(tc.verdict, tc.want) {
			t.Errorf("%s: verdict %q does not say %q", tc.name, tc.verdict, tc.want)
		}
	}
}
