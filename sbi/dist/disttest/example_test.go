package disttest_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/dist/disttest"
)

// ramp is a user's distribution: density 2x on [0, 1], drawn as √u; with half set, its
// LogProb forgets the factor 2 of the density.
type ramp struct{ half bool }

func (ramp) Dim() int { return 1 }

func (ramp) Sample(rng *rand.Rand, n int) *mat.Dense {
	x := mat.NewDense(n, 1, nil)
	for i := range n {
		x.Set(i, 0, math.Sqrt(rng.Float64()))
	}
	return x
}

func (r ramp) LogProb(x *mat.Dense) []float64 {
	n, c := x.Dims()
	if c != 1 {
		panic(fmt.Sprintf("ramp: LogProb: x has %d columns, expected 1", c))
	}
	lp := make([]float64, n)
	for i := range lp {
		v := x.At(i, 0)
		switch {
		case !r.InSupport([]float64{v}):
			lp[i] = math.Inf(-1)
		case r.half:
			lp[i] = math.Log(v)
		default:
			lp[i] = math.Log(2 * v)
		}
	}
	return lp
}

func (ramp) InSupport(x []float64) bool { return len(x) == 1 && x[0] >= 0 && x[0] <= 1 }

func (ramp) Support() (low, high []float64) { return []float64{0}, []float64{1} }

// A distribution's own tests run the suite; each check is a subtest.
func ExampleTestDistribution() {
	_ = func(t *testing.T) {
		disttest.TestDistribution(t, dist.NewGamma([]float64{2}, []float64{0.5}), disttest.Config{})
	}
}

// Check runs the same checks outside a test: the ramp passes, and the one whose LogProb lost
// the factor 2 fails the normalization.
func ExampleCheck() {
	fmt.Println(len(disttest.Check(ramp{}, disttest.Config{})), "failures")
	for _, f := range disttest.Check(ramp{half: true}, disttest.Config{}) {
		fmt.Println(f.Check)
	}
	// Output:
	// 0 failures
	// normalized
}
