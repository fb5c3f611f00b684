package dist

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// BoxUniform is the uniform distribution on the box [low₁,high₁]×…×[low_d,high_d].
type BoxUniform struct {
	low, high []float64
	logVol    float64
}

// NewBoxUniform returns the uniform distribution on the box with corners low and high. It
// panics unless low[i] < high[i] are finite for every i.
func NewBoxUniform(low, high []float64) *BoxUniform {
	checkLen("NewBoxUniform", "high", len(high), len(low))
	if len(low) == 0 {
		panic("dist: NewBoxUniform: low is empty, expected at least one dimension")
	}
	checkFinite("NewBoxUniform", "low", low)
	checkFinite("NewBoxUniform", "high", high)
	u := &BoxUniform{low: append([]float64(nil), low...), high: append([]float64(nil), high...)}
	for i := range low {
		if !(low[i] < high[i]) {
			panic(fmt.Sprintf("dist: NewBoxUniform: low[%d] = %v ≥ high[%d] = %v, expected low < high", i, low[i], i, high[i]))
		}
		u.logVol += math.Log(high[i] - low[i])
	}
	return u
}

// NewUniformCube returns the uniform distribution on [low, high]^dim.
func NewUniformCube(low, high float64, dim int) *BoxUniform {
	return NewBoxUniform(fill(dim, low), fill(dim, high))
}

// Dim is the number of coordinates.
func (u *BoxUniform) Dim() int { return len(u.low) }

// Sample draws n points.
func (u *BoxUniform) Sample(rng *rand.Rand, n int) *mat.Dense {
	checkN("BoxUniform", n)
	x := newDense(n, u.Dim())
	for i := 0; i < n; i++ {
		row := x.RawRowView(i)
		for j := range row {
			row[j] = u.low[j] + (u.high[j]-u.low[j])*rng.Float64()
		}
	}
	return x
}

// LogProb is −log(volume) inside the box and −Inf outside.
func (u *BoxUniform) LogProb(x *mat.Dense) []float64 {
	n := checkCols("BoxUniform", u.Dim(), x)
	lp := make([]float64, n)
	for i := range lp {
		if u.InSupport(x.RawRowView(i)[:u.Dim()]) {
			lp[i] = -u.logVol
		} else {
			lp[i] = math.Inf(-1)
		}
	}
	return lp
}

// InSupport reports whether low ≤ x ≤ high in every coordinate.
func (u *BoxUniform) InSupport(x []float64) bool {
	for j, v := range x {
		if !(v >= u.low[j] && v <= u.high[j]) {
			return false
		}
	}
	return len(x) == len(u.low)
}

// Support returns copies of the corners of the box.
func (u *BoxUniform) Support() (low, high []float64) {
	return append([]float64(nil), u.low...), append([]float64(nil), u.high...)
}

// Mean is the centre of the box.
func (u *BoxUniform) Mean() []float64 {
	m := make([]float64, u.Dim())
	for j := range m {
		m[j] = (u.low[j] + u.high[j]) / 2
	}
	return m
}

// Covariance is diagonal with (high−low)²/12.
func (u *BoxUniform) Covariance() *mat.SymDense {
	v := make([]float64, u.Dim())
	for j := range v {
		w := u.high[j] - u.low[j]
		v[j] = w * w / 12
	}
	return diagSym(v)
}
