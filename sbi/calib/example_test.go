package calib_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/calib"
	"github.com/gosbi/gosbi/sbi/dist"
)

// overconfident is q(θ|x) = N(x/2, 0.35²) for the model θ ~ N(0, 1), x | θ ~ N(θ, 1), whose
// posterior is N(x/2, 0.5).
type overconfident struct{}

func (overconfident) Posterior(x []float64) sbi.Posterior {
	return dist.NewNormal([]float64{x[0] / 2}, []float64{0.35})
}

func (q overconfident) LogProbPairs(theta, x *mat.Dense) []float64 {
	n, _ := theta.Dims()
	lp := make([]float64, n)
	for i := range n {
		lp[i] = q.Posterior(x.RawRowView(i)).LogProb(theta.Slice(i, i+1, 0, 1).(*mat.Dense))[0]
	}
	return lp
}

func simulate(rng *rand.Rand, theta *mat.Dense) *mat.Dense {
	n, _ := theta.Dims()
	x := mat.NewDense(n, 1, nil)
	for i := range n {
		x.Set(i, 0, theta.At(i, 0)+rng.NormFloat64())
	}
	return x
}

// NewConformal turns an over-confident estimator's densities into regions with 90% coverage.
func ExampleNewConformal() {
	rng := rand.New(rand.NewPCG(1, 2))
	prior := dist.NewStandardNormal(1)
	theta := prior.Sample(rng, 5000)
	c, err := calib.NewConformal(overconfident{}, theta, simulate(rng, theta), 0.1)
	if err != nil {
		fmt.Println(err)
		return
	}
	test := prior.Sample(rng, 5000)
	cov := c.Coverage(test, simulate(rng, test))
	fmt.Printf("coverage within 0.02 of 0.90: %v\n", math.Abs(cov-0.9) < 0.02)
	// Output: coverage within 0.02 of 0.90: true
}

// ScoreCalibrate widens the over-confident posterior towards the exact sd √0.5 ≈ 0.71.
func ExampleScoreCalibrate() {
	rng := rand.New(rand.NewPCG(5, 6))
	q := overconfident{}
	obs := q.Posterior([]float64{0.8}).Sample(rng, 2000)
	res, err := calib.ScoreCalibrate(rng, obs, simulate, calib.RefitAmortized(q), calib.ScoreCalConfig{M: 200, N: 200})
	if err != nil {
		fmt.Println(err)
		return
	}
	adj := res.Adjust(obs)
	sd := mat.NewVecDense(2000, mat.Col(nil, 0, adj))
	mean := mat.Sum(sd) / 2000
	var v float64
	for i := range 2000 {
		v += (sd.AtVec(i) - mean) * (sd.AtVec(i) - mean) / 2000
	}
	fmt.Printf("adjusted sd wider than 0.5: %v\n", math.Sqrt(v) > 0.5)
	// Output: adjusted sd wider than 0.5: true
}

// regional is q(θ|x) for θ ~ N(0, 1), x = (u, y), u ~ U(−1, 1), y | θ ~ N(θ, 1): the exact
// posterior N(y/2, ½) where u ≤ 0, over-confident (sd halved) where u > 0.
type regional struct{}

func (regional) Posterior(x []float64) sbi.Posterior {
	sd := math.Sqrt(0.5)
	if x[0] > 0 {
		sd /= 2
	}
	return dist.NewNormal([]float64{x[1] / 2}, []float64{sd})
}

func (q regional) LogProbPairs(theta, x *mat.Dense) []float64 {
	n, _ := theta.Dims()
	lp := make([]float64, n)
	for i := range n {
		lp[i] = q.Posterior(x.RawRowView(i)).LogProb(theta.Slice(i, i+1, 0, 1).(*mat.Dense))[0]
	}
	return lp
}

func regionalPairs(rng *rand.Rand, n int) (*mat.Dense, *mat.Dense) {
	theta, x := mat.NewDense(n, 1, nil), mat.NewDense(n, 2, nil)
	for i := range n {
		t := rng.NormFloat64()
		theta.Set(i, 0, t)
		x.Set(i, 0, 2*rng.Float64()-1)
		x.Set(i, 1, t+rng.NormFloat64())
	}
	return theta, x
}

// A single conformal threshold covers about 90% over all observations, but not in the region
// where the estimator is over-confident; one threshold per region covers 90% in each (up to the
// noise of 4000 calibration and 20000 test pairs, about ±0.01).
func ExampleNewGroupConformal() {
	rng := rand.New(rand.NewPCG(1, 2))
	sign := calib.PartitionFunc(2, func(x []float64) int {
		if x[0] > 0 {
			return 1
		}
		return 0
	})
	thC, xC := regionalPairs(rng, 4000) // fresh calibration pairs
	thT, xT := regionalPairs(rng, 20000)
	global, _ := calib.NewConformal(regional{}, thC, xC, 0.1)
	byRegion := calib.MustNewGroupConformal(regional{}, thC, xC, 0.1, sign)
	g, _ := calib.CoverageByGroup(global.Contains(thT, xT), xT, sign, 0.9)
	r, _ := byRegion.GroupCoverage(thT, xT)
	fmt.Printf("global threshold:    coverage %.2f, by region %.2f / %.2f\n", global.Coverage(thT, xT), g.Coverage[0], g.Coverage[1])
	fmt.Printf("threshold by region: coverage %.2f, by region %.2f / %.2f\n", byRegion.Coverage(thT, xT), r.Coverage[0], r.Coverage[1])
	// Output:
	// global threshold:    coverage 0.89, by region 0.98 / 0.80
	// threshold by region: coverage 0.90, by region 0.90 / 0.90
}

// MeasureCoverage sets the coverage on fresh test pairs beside what the guarantee promises:
// the average over calibration sets, and the range one calibration set's coverage falls in.
func ExampleConformal_MeasureCoverage() {
	rng := rand.New(rand.NewPCG(3, 4))
	prior := dist.NewStandardNormal(1)
	theta := prior.Sample(rng, 500)
	c, err := calib.NewConformal(overconfident{}, theta, simulate(rng, theta), 0.1)
	if err != nil {
		fmt.Println(err)
		return
	}
	test := prior.Sample(rng, 2000)
	r, err := c.MeasureCoverage(test, simulate(rng, test))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("guarantee [%.3f, %.3f]; one calibration set of %d: [%.3f, %.3f]\n", r.GuaranteeLower, r.GuaranteeUpper, r.NCal, r.SetLower, r.SetUpper)
	fmt.Println("consistent with the guarantee:", r.Consistent())
	// Output:
	// guarantee [0.900, 0.902]; one calibration set of 500: [0.873, 0.925]
	// consistent with the guarantee: true
}
