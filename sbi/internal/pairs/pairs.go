// Package pairs selects the pairs (θ, x) that the diagnostics (sbi/diag) and the calibration
// methods (sbi/calib) can evaluate: those with finite values, where an observation that ends
// in NaN padding (sbi.AmortizedTrials: observations of a varying number of i.i.d. trials) is
// read before its padding.
package pairs

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Unpadder is an estimator whose observations may end in NaN padding (sbi.AmortizedTrials):
// Unpadded returns the values of x before its padding, and an error for an x it cannot read.
type Unpadder interface {
	Unpadded(x []float64) ([]float64, error)
}

// Finite returns the rows i where theta and x are all finite, where for an est that is an
// Unpadder only the values of x before its padding count (a padded x is kept, one without a
// trial is left out), and the number left out; nil matrices when no row is kept. It returns
// an error naming the first pair (noun and its index, "test pair 3") whose x an Unpadder
// cannot read. theta and x must have the same number of rows.
func Finite(est any, theta, x *mat.Dense, noun string) (th, xx *mat.Dense, dropped int, err error) {
	n, dt := theta.Dims()
	_, dx := x.Dims()
	var keep []int
	for i := range n {
		ok, err := Readable(est, x.RawRowView(i))
		if err != nil {
			return nil, nil, 0, fmt.Errorf("%s %d: %w", noun, i, err)
		}
		if ok && AllFinite(theta.RawRowView(i)) {
			keep = append(keep, i)
		}
	}
	switch len(keep) {
	case n:
		return theta, x, 0, nil
	case 0:
		return nil, nil, n, nil
	}
	th, xx = mat.NewDense(len(keep), dt, nil), mat.NewDense(len(keep), dx, nil)
	for k, i := range keep {
		th.SetRow(k, theta.RawRowView(i))
		xx.SetRow(k, x.RawRowView(i))
	}
	return th, xx, n - len(keep), nil
}

// Readable reports whether the observation x holds a value and all its values are finite,
// where for an est that is an Unpadder only the values before its padding count. Its error is
// the Unpadder's, for an x it cannot read.
func Readable(est any, x []float64) (bool, error) {
	if u, ok := est.(Unpadder); ok {
		var err error
		if x, err = u.Unpadded(x); err != nil {
			return false, err
		}
	}
	return len(x) > 0 && AllFinite(x), nil
}

// AllFinite reports whether every value of v is a number other than ±Inf.
func AllFinite(v []float64) bool {
	for _, f := range v {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return false
		}
	}
	return true
}
