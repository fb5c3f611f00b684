package pvalue

import (
	"math"
	"slices"
	"testing"
)

// A p-value and its level are shown in the order they are in, with as few digits as that allows.
func TestFormat(t *testing.T) {
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
		{0.0499, 0.05, "0.0499", "0.05"},         // 3 digits suffice
		{0.05 / 3, 0.05 / 3, "0.0167", "0.0167"}, // equal: shown equal
		{math.NaN(), 0.05, "NaN", "0.05"},
		{math.Nextafter(0.05, 1), 0.05, "0.05000000000000001", "0.05"},
	} {
		ps, as := Format(tc.p, tc.alpha)
		if ps != tc.ps || as != tc.as {
			t.Errorf("Format(%v, %v) = %s, %s; want %s, %s", tc.p, tc.alpha, ps, as, tc.ps, tc.as)
		}
	}
}

// Several p-values against one level share the digits that the closest of them needs, so the
// level is written the same beside each.
func TestFormatAll(t *testing.T) {
	for _, tc := range []struct {
		ps    []float64
		alpha float64
		shown []string
		as    string
	}{
		{[]float64{0.2, 0.0123}, 0.05, []string{"0.2", "0.0123"}, "0.05"},
		{[]float64{0.2, 0.01004, 0.00999}, 0.01, []string{"0.2", "0.01004", "0.00999"}, "0.01"},
		{[]float64{0.5, 0.016668}, 0.05 / 3, []string{"0.5", "0.016668"}, "0.016667"},
		{[]float64{0.3, math.NaN()}, 0.05, []string{"0.3", "NaN"}, "0.05"},
		{nil, 0.05, []string{}, "0.05"},
	} {
		shown, as := FormatAll(tc.ps, tc.alpha)
		if !slices.Equal(shown, tc.shown) || as != tc.as {
			t.Errorf("FormatAll(%v, %v) = %q, %s; want %q, %s", tc.ps, tc.alpha, shown, as, tc.shown, tc.as)
		}
	}
}
