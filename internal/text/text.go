// Package text words counts, percentages and lists in the sentences of messages and verdicts:
// "1 value" but "2 values", "99.9%" but never "100%" for a level short of 1, "a, b or c". It is shared by
// the libraries (sbi, sbi/diag, sbi/certify, viz, study) and the interpreter's explanations of
// compiler errors, so that every count and every confidence level reads the same way.
package text

import (
	"strconv"
	"strings"
)

// Plural returns one when n is 1, else many: the word for a count of n, for nouns whose
// plural is not the singular with an s ("directory", "directories").
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count returns n and the noun, with an s unless n is 1: "1 value", "0 values", "3 values".
func Count(n int, noun string) string {
	return strconv.Itoa(n) + " " + Plural(n, noun, noun+"s")
}

// Percent writes a fraction p, such as a confidence level, as a percentage with the digits it
// needs, up to four significant ones: "95%", "90%", "99.5%", "99.99%". A fraction other than 1
// never reads "100%": where four digits round it to 100, more are written until they do not,
// so 0.99999 reads "99.999%", not a certainty it is not.
func Percent(p float64) string {
	v := 100 * p
	s := strconv.FormatFloat(v, 'g', 4, 64)
	for digits := 5; s == "100" && p != 1 && digits <= 17; digits++ {
		s = strconv.FormatFloat(v, 'g', digits, 64)
	}
	return s + "%"
}

// List joins items as a sentence lists them, with conj ("and", "or") before the last:
// "a", "a or b", "a, b or c"; "" for none.
func List(items []string, conj string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}
