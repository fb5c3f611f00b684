package text

import "strings"

// maxEdits is the most edits (insertions, deletions, substitutions of a character) between a
// misspelt name and the name Nearest suggests for it.
const maxEdits = 2

// Nearest returns the candidate that name most likely misspells: one that differs from it in
// case only, else the one fewest edits away, at most two (the Levenshtein distance), the first
// of candidates on a tie. It returns "" when none is that close, and when name is a candidate.
func Nearest(name string, candidates []string) string {
	best, bestD := "", maxEdits+1
	for _, c := range candidates {
		switch {
		case c == name:
			return ""
		case strings.EqualFold(c, name) && bestD > 0:
			best, bestD = c, 0 // a difference of case outranks any edits
		case bestD > 0:
			if d := EditDistance(name, c); d < bestD {
				best, bestD = c, d
			}
		}
	}
	return best
}

// EditDistance is the Levenshtein distance between a and b, in characters: the fewest
// insertions, deletions and substitutions of a character that turn a into b.
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			sub := prev[j-1]
			if ra[i-1] != rb[j-1] {
				sub++
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, sub)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
