// Package binom holds the exact confidence bounds of a binomial proportion that the coverage
// checks of the library share.
package binom

import "gonum.org/v1/gonum/stat/distuv"

// ClopperPearson returns the one-sided (1 − alpha) lower and upper confidence bounds of a
// binomial proportion with k successes in n trials (Clopper & Pearson 1934):
//
//	lo = the alpha quantile of Beta(k, n − k + 1),   hi = the 1 − alpha quantile of Beta(k + 1, n − k),
//
// with lo = 0 at k = 0 and hi = 1 at k = n. [lo, hi] is the two-sided (1 − 2·alpha) interval.
// It panics unless 0 ≤ k ≤ n, n > 0 and 0 < alpha < 1.
func ClopperPearson(k, n int, alpha float64) (lo, hi float64) {
	if n <= 0 || k < 0 || k > n || !(alpha > 0 && alpha < 1) {
		panic("binom: ClopperPearson needs 0 ≤ k ≤ n, n > 0 and alpha in (0, 1)")
	}
	lo, hi = 0, 1
	if k > 0 {
		lo = distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(alpha)
	}
	if k < n {
		hi = distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - alpha)
	}
	return lo, hi
}
