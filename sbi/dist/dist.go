package dist

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Distribution is a probability distribution over R^Dim().
type Distribution interface {
	// Dim is the number of coordinates of a point.
	Dim() int
	// Sample draws n points, one per row of the result (n×Dim): it holds n × Dim values.
	Sample(rng *rand.Rand, n int) *mat.Dense
	// LogProb is the log density of each row of x: −Inf outside the support, never NaN.
	// It panics if x does not have Dim columns.
	LogProb(x *mat.Dense) []float64
	// InSupport reports whether the point x lies in the support; a point of another length
	// than Dim does not.
	InSupport(x []float64) bool
	// Support returns the smallest box holding the support, with ±Inf where it is unbounded.
	Support() (low, high []float64)
}

// Moments is implemented by distributions whose mean and covariance have a closed form.
type Moments interface {
	Mean() []float64
	Covariance() *mat.SymDense
}

// MeanCov returns the closed-form mean and covariance of d, and false when d has none (or
// when a part of a product or the base of a transform has none).
func MeanCov(d Distribution) (mean []float64, cov *mat.SymDense, ok bool) {
	switch d := d.(type) {
	case Moments:
		return d.Mean(), d.Covariance(), true
	case *Independent:
		return d.meanCov()
	case *Transformed:
		return d.meanCov()
	}
	return nil, nil, false
}

// Bounds returns the support box of d and true when it is a box: Dim bounds on each side,
// every one finite (not ±Inf nor NaN) and each low below its high.
func Bounds(d Distribution) (low, high []float64, ok bool) {
	low, high = d.Support()
	if len(low) != d.Dim() || len(high) != d.Dim() {
		return low, high, false
	}
	for i := range low {
		if math.IsInf(low[i], 0) || math.IsInf(high[i], 0) || !(low[i] < high[i]) {
			return low, high, false
		}
	}
	return low, high, true
}

// checkCols panics when x does not have dim columns.
func checkCols(name string, dim int, x *mat.Dense) int {
	r, c := x.Dims()
	if c != dim {
		panic(fmt.Sprintf("dist: %s.LogProb: x has %d columns, expected %d (one row per point)", name, c, dim))
	}
	return r
}

// checkN panics when n is negative, or when n points of dim coordinates are more values than
// an int can count (the size of the result would wrap).
func checkN(name string, n, dim int) {
	if n < 0 {
		panic(fmt.Sprintf("dist: %s.Sample: n = %d, expected n ≥ 0", name, n))
	}
	if dim > 0 && n > math.MaxInt/dim {
		panic(fmt.Sprintf("dist: %s.Sample: n = %d points of %d coordinates are more values than an int can count: draw fewer points", name, n, dim))
	}
}

// sampleCoords draws n points of dim independent coordinates, coordinate j of each by draw(j),
// row by row. name is the distribution's, for the panic on a negative n.
func sampleCoords(name string, n, dim int, draw func(j int) float64) *mat.Dense {
	checkN(name, n, dim)
	x := newDense(n, dim)
	for i := 0; i < n; i++ {
		row := x.RawRowView(i)
		for j := range row {
			row[j] = draw(j)
		}
	}
	return x
}

// logProbRows is the LogProb of d row by row: logDensity(row) for the rows of x in d's
// support, −Inf for the others. name is the distribution's, for the panic on a wrong width.
// A NaN from logDensity is −Inf: on the boundary of a product one coordinate's log density
// can be +Inf and another's −Inf (Beta or Gamma at 0), a density 0·∞ that Independent also
// gives as −Inf.
func logProbRows(name string, d Distribution, x *mat.Dense, logDensity func(row []float64) float64) []float64 {
	n := checkCols(name, d.Dim(), x)
	lp := make([]float64, n)
	for i := range lp {
		row := x.RawRowView(i)
		lp[i] = math.Inf(-1)
		if d.InSupport(row) {
			if v := logDensity(row); !math.IsNaN(v) {
				lp[i] = v
			}
		}
	}
	return lp
}

// coords returns f(0), …, f(dim−1): a per-coordinate mean or variance.
func coords(dim int, f func(j int) float64) []float64 {
	v := make([]float64, dim)
	for j := range v {
		v[j] = f(j)
	}
	return v
}

// newDense allows zero rows, which mat.NewDense does not.
func newDense(n, d int) *mat.Dense {
	if n == 0 || d == 0 {
		return &mat.Dense{}
	}
	return mat.NewDense(n, d, nil)
}

func hasNaN(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) {
			return true
		}
	}
	return false
}

func fill(n int, v float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func diagSym(v []float64) *mat.SymDense {
	c := mat.NewSymDense(len(v), nil)
	for i, x := range v {
		c.SetSym(i, i, x)
	}
	return c
}

func checkLen(name, what string, got, want int) {
	if got != want {
		panic(fmt.Sprintf("dist: %s: %s has length %d, expected %d", name, what, got, want))
	}
}

func checkPositive(name, what string, v []float64) {
	for i, x := range v {
		if !(x > 0) || math.IsInf(x, 0) {
			panic(fmt.Sprintf("dist: %s: %s[%d] = %v, expected a finite value > 0", name, what, i, x))
		}
	}
}

// checkWidth panics when high − low overflows float64 (finite bounds more than
// math.MaxFloat64 apart): the width, the volume and the draws low + width·u would be infinite.
func checkWidth(name string, i int, low, high float64) {
	if w := high - low; math.IsInf(w, 1) && !math.IsInf(low, 0) && !math.IsInf(high, 0) {
		panic(fmt.Sprintf("dist: %s: the width high[%d] − low[%d] = %v − (%v) overflows float64, expected a width of at most %g", name, i, i, high, low, math.MaxFloat64))
	}
}

func checkFinite(name, what string, v []float64) {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			panic(fmt.Sprintf("dist: %s: %s[%d] = %v, expected a finite value", name, what, i, x))
		}
	}
}

const logSqrt2Pi = 0.91893853320467274178 // ½·log(2π)
