// Package quantile holds the empirical quantile of sorted samples shared by the calib and diag
// packages, and the inverse of a discrete cumulative distribution that the samplers of sbi and
// sbi/task draw cells with. It holds no estimator and no test.
package quantile

import (
	"math"
	"sort"
)

// Index is the inverse of the cumulative sums cdf (non-decreasing, last cdf[n−1]) at u in
// [0, cdf[n−1]): the index i with cdf[i−1] ≤ u < cdf[i], which is never one of zero weight
// (cdf[i] = cdf[i−1]); an u at or beyond the last sum gives the last index.
func Index(cdf []float64, u float64) int {
	return min(sort.Search(len(cdf), func(i int) bool { return cdf[i] > u }), len(cdf)-1)
}

// Sorted is the p-quantile of the sorted values s with linear interpolation between order
// statistics (Hyndman and Fan 1996, type 7, as in R and Julia): with h = p(n − 1),
//
//	Q(p) = s[⌊h⌋] + (h − ⌊h⌋)(s[⌊h⌋+1] − s[⌊h⌋]),
//
// clamped to the smallest and largest value. s must not be empty.
func Sorted(s []float64, p float64) float64 {
	h := p * float64(len(s)-1)
	lo := int(math.Floor(h))
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	if lo < 0 {
		return s[0]
	}
	return s[lo] + (h-float64(lo))*(s[lo+1]-s[lo])
}
