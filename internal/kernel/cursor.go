package kernel

import (
	"os"
	"unicode/utf16"
	"unicode/utf8"
)

// toCodePoints converts a cursor position received from a front-end into Unicode code points
// and reports whether the front-end counted in UTF-16 code units (see the package comment).
func toCodePoints(code string, pos int) (int, bool) {
	n := utf8.RuneCountInString(code)
	units := utf16Len(code)
	mode := os.Getenv("GOSBI_CURSOR_UNITS")
	isUTF16 := mode == "utf16" || (mode != "codepoints" && pos > n && pos <= units)
	if !isUTF16 {
		return clamp(pos, 0, n), false
	}
	cp, u := 0, 0
	for _, r := range code {
		if u >= pos {
			break
		}
		u += utf16.RuneLen(r)
		cp++
	}
	return cp, true
}

// toUTF16 converts a position in code points into UTF-16 code units.
func toUTF16(code string, pos int) int {
	u, cp := 0, 0
	for _, r := range code {
		if cp >= pos {
			break
		}
		u += utf16.RuneLen(r)
		cp++
	}
	return u
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

func clamp(x, lo, hi int) int {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}
