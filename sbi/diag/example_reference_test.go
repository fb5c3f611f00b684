package diag_test

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/sbi/dist"
)

// ExampleReferenceLogPosteriors estimates the true log posterior density at the truth for a
// model whose likelihood is known, θ ~ N(0, 1) and x = θ + N(0, 1), drawing from the prior
// alone, and compares it with the closed form: the posterior is N(x/2, 1/2).
func ExampleReferenceLogPosteriors() {
	theta := mat.NewDense(2, 1, []float64{0.3, -1.2})
	x := mat.NewDense(2, 1, []float64{0.9, -0.4})
	res := diag.MustReferenceLogPosteriors(theta, x, diag.ReferenceModel{
		Prior: dist.NewNormal([]float64{0}, []float64{1}),
		LogLikelihood: func(th, x []float64) (float64, error) {
			d := x[0] - th[0]
			return -d*d/2 - math.Log(2*math.Pi)/2, nil
		},
	}, diag.ReferenceConfig{Draws: 20000, Seed: 1})
	for i, p := range res.Pairs {
		d := theta.At(i, 0) - x.At(i, 0)/2
		exact := -d*d - math.Log(math.Pi)/2 // log N(θ; x/2, 1/2)
		fmt.Printf("pair %d: estimate %.1f, exact %.3f, within 3 SE: %v\n", i, p.LogPosterior, exact, math.Abs(p.LogPosterior-exact) < 3*p.SE)
	}
	fmt.Println("inconclusive:", res.Inconclusive)
	// Output:
	// pair 0: estimate -0.6, exact -0.595, within 3 SE: true
	// pair 1: estimate -1.6, exact -1.572, within 3 SE: true
	// inconclusive: 0
}
