// Package text words counts in the sentences of messages and verdicts: "1 value" but
// "2 values". It is shared by the libraries (sbi, sbi/diag, viz, study) and the interpreter's
// explanations of compiler errors, so that every count reads the same way.
package text

import "strconv"

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
