package mmd

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestMedianDistancePasses compares the median of the passes that narrow its bits (directPairs
// lowered so that they run, with several rounds) with the median selected among all distances,
// bit for bit, on rows with ties, repeated points, both parities of the pair count and
// distances from 1e-300 to 1e300.
func TestMedianDistancePasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	rows := func(n, d int, draw func() float64) *mat.Dense {
		m := mat.NewDense(n, d, nil)
		for i := range n {
			for j := range d {
				m.Set(i, j, draw())
			}
		}
		return m
	}
	cases := []struct {
		name string
		a    *mat.Dense
	}{
		{"normal 300×3", rows(300, 3, rng.NormFloat64)},
		{"normal 301×1", rows(301, 1, rng.NormFloat64)},
		{"integers 0…3, many ties", rows(200, 2, func() float64 { return float64(rng.IntN(4)) })},
		{"one point repeated", rows(100, 2, func() float64 { return 1.5 })},
		{"two points repeated", rows(120, 1, func() float64 { return float64(rng.IntN(2)) })},
		{"scales 1e-300 to 1e300", rows(150, 2, func() float64 { return math.Pow(10, float64(rng.IntN(601)-300)) * rng.NormFloat64() })},
		{"three rows", rows(3, 2, rng.NormFloat64)},
	}
	defer func(old int) { directPairs = old }(directPairs)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			directPairs = 1 << 22
			want := MedianDistance(c.a)
			for _, limit := range []int{0, 1, 16, 1000} {
				directPairs = limit
				if got := MedianDistance(c.a); math.Float64bits(got) != math.Float64bits(want) {
					t.Errorf("directPairs = %d: median %v, want %v as selected among all distances", limit, got, want)
				}
			}
		})
	}
}

// TestMedianDistanceMemoryBounded computes the median distance of 8000 rows, 32 million
// distances (256 MiB if held), and checks that it allocates no more than the 32 MiB of
// directPairs and change.
func TestMedianDistanceMemoryBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	a := mat.NewDense(8000, 2, nil)
	for i := range 8000 {
		a.Set(i, 0, rng.NormFloat64())
		a.Set(i, 1, rng.NormFloat64())
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	med := MedianDistance(a)
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 40<<20 {
		t.Errorf("MedianDistance of 8000 rows allocated %d MiB, want at most 40 MiB", got>>20)
	}
	if !(med > 1 && med < 2.5) { // the median distance of two standard normal points in 2-D is √(2·2 ln 2) ≈ 1.67
		t.Errorf("median distance %v, want about 1.67", med)
	}
}
