// Package sim is a scientist's own simulator, kept in a local module that the notebook's
// go.work uses.
package sim

import (
	"math"
	"math/rand/v2"
)

// Simulate draws one observation of the two-moons simulator at theta (two parameters).
func Simulate(rng *rand.Rand, theta []float64) []float64 {
	a := math.Pi * (rng.Float64() - 0.5)
	r := 0.1 + 0.01*rng.NormFloat64()
	p := []float64{r*math.Cos(a) + 0.25, r * math.Sin(a)}
	s := math.Sqrt(0.5)
	return []float64{p[0] - math.Abs(theta[0]+theta[1])*s, p[1] + (-theta[0]+theta[1])*s}
}

// Scale multiplies x by the package's factor.
func Scale(x float64) float64 { return Factor * x }

// Factor is what Scale multiplies by.
const Factor = 3

// Number is a type constraint: cells cannot use it.
type Number interface{ ~int | ~float64 }

// Sum is generic: cells cannot use it.
func Sum[T Number](xs ...T) T {
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}

// Pair is a generic type: cells cannot use it.
type Pair[T any] struct{ A, B T }
