package dist

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/internal/mathx"
)

// BoxUniform is the uniform distribution on the box [low₁,high₁]×…×[low_d,high_d].
type BoxUniform struct {
	low, high []float64
	logVol    float64
}

// NewBoxUniform returns the uniform distribution on the box with corners low and high. It
// panics unless low[i] < high[i] are finite for every i, with a finite width high[i] − low[i]
// (at most math.MaxFloat64: a wider box has no float64 volume nor draws).
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
		checkWidth("NewBoxUniform", i, low[i], high[i])
		u.logVol += mathx.Log(high[i] - low[i])
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
	return sampleCoords("BoxUniform", n, u.Dim(), func(j int) float64 { return u.low[j] + (u.high[j]-u.low[j])*rng.Float64() })
}

// LogProb is −log(volume) inside the box and −Inf outside.
func (u *BoxUniform) LogProb(x *mat.Dense) []float64 {
	return logProbRows("BoxUniform", u, x, func([]float64) float64 { return -u.logVol })
}

// InSupport reports whether low ≤ x ≤ high in every coordinate.
func (u *BoxUniform) InSupport(x []float64) bool {
	if len(x) != len(u.low) {
		return false
	}
	for j, v := range x {
		if !(v >= u.low[j] && v <= u.high[j]) {
			return false
		}
	}
	return true
}

// Support returns copies of the corners of the box.
func (u *BoxUniform) Support() (low, high []float64) {
	return append([]float64(nil), u.low...), append([]float64(nil), u.high...)
}

// Mean is the centre of the box.
func (u *BoxUniform) Mean() []float64 {
	return coords(u.Dim(), func(j int) float64 { return (u.low[j] + u.high[j]) / 2 })
}

// Covariance is diagonal with (high−low)²/12.
func (u *BoxUniform) Covariance() *mat.SymDense {
	return diagSym(coords(u.Dim(), func(j int) float64 {
		w := u.high[j] - u.low[j]
		return w * w / 12
	}))
}
