// Package pvalue formats p-values beside the level they are compared with, so that a sentence,
// a table row or a plot title shows them in the order they are in: a p-value just above the
// level never reads as equal to it, nor one just below as above it. It is shared by the
// libraries that show test verdicts (sbi/diag, sbi/certify, viz).
package pvalue

import "strconv"

// Format formats p and the level alpha it is compared with: with 3 significant digits, or more
// where fewer would show them in another order than they are (p = 0.05004 against alpha =
// 0.05 is not "0.05 > 0.05"), and equal only when they are equal. NaN stays "NaN".
func Format(p, alpha float64) (ps, as string) {
	shown, as := FormatAll([]float64{p}, alpha)
	return shown[0], as
}

// FormatAll is Format for several p-values compared with one level: all are shown with the
// same number of significant digits, the fewest (at least 3) that keep every p-value on its side
// of the level, so that the level reads the same beside each of them.
func FormatAll(ps []float64, alpha float64) (shown []string, as string) {
	shown = make([]string, len(ps))
	for digits := 3; digits < 19; digits++ {
		if as, ok := formatAt(ps, alpha, digits, shown); ok {
			return shown, as
		}
	}
	for i, p := range ps {
		shown[i] = strconv.FormatFloat(p, 'g', -1, 64)
	}
	return shown, strconv.FormatFloat(alpha, 'g', -1, 64)
}

// formatAt writes ps with the given significant digits into shown and returns alpha with as
// many, and whether every shown p-value compares with the shown level as the p-value does
// with alpha (≤ and =).
func formatAt(ps []float64, alpha float64, digits int, shown []string) (string, bool) {
	as := strconv.FormatFloat(alpha, 'g', digits, 64)
	sa, _ := strconv.ParseFloat(as, 64)
	ok := true
	for i, p := range ps {
		shown[i] = strconv.FormatFloat(p, 'g', digits, 64)
		sp, _ := strconv.ParseFloat(shown[i], 64)
		if (sp <= sa) != (p <= alpha) || (sp == sa) != (p == alpha) {
			ok = false
		}
	}
	return as, ok
}
