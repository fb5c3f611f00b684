// Package sat adds and multiplies non-negative counts (sizes asked for by a caller: rows times
// columns, datasets times draws) without wrapping: a result at or above Max stands for "too
// many to hold", so that a product of user sizes that would overflow an int is refused with
// its sizes named instead of allocating a wrapped size.
package sat

import "math"

// Max is where counts saturate: far above anything a machine holds, far below overflow.
const Max = math.MaxInt / 4

// Add is a + b for counts a, b ≥ 0, at most Max.
func Add(a, b int) int { return min(min(a, Max)+min(b, Max), Max) }

// Mul is a · b for counts a, b ≥ 0, at most Max.
func Mul(a, b int) int {
	if a == 0 || b == 0 {
		return 0
	}
	if a > Max/b {
		return Max
	}
	return a * b
}

// Prod is the product of the counts v, each ≥ 0, at most Max; 1 for none.
func Prod(v ...int) int {
	p := 1
	for _, x := range v {
		p = Mul(p, x)
	}
	return p
}
