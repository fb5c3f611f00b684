package dist_test

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/dist"
)

func ExampleNewBoxUniform() {
	prior := dist.NewBoxUniform([]float64{-1, -1}, []float64{1, 1})
	rng := rand.New(rand.NewPCG(1, 2))
	theta := prior.Sample(rng, 3)
	fmt.Println(theta.Dims())
	fmt.Printf("%.4f\n", prior.LogProb(theta))
	// Output:
	// 3 2
	// [-1.3863 -1.3863 -1.3863]
}

func ExampleNewExp() {
	// A log-uniform prior on [e⁻⁴, e¹]² (the rates of a Lotka–Volterra model).
	prior := dist.NewExp(dist.NewUniformCube(-4, 1, 2))
	low, high, _ := dist.Bounds(prior)
	fmt.Printf("%.4f %.4f\n", low, high)
	// Output: [0.0183 0.0183] [2.7183 2.7183]
}

func ExampleNewIndependent() {
	// The prior of an SIR model: two log-normal rates, and a bounded third parameter.
	prior := dist.NewIndependent(
		dist.NewLogNormal([]float64{-0.916, -2.079}, []float64{0.5, 0.2}),
		dist.NewBoxUniform([]float64{0}, []float64{1}),
	)
	mean, _, ok := dist.MeanCov(prior)
	fmt.Println(prior.Dim(), ok)
	fmt.Printf("%.3f\n", mean)
	// Output:
	// 3 true
	// [0.453 0.128 0.500]
}

func ExampleNewMultivariateNormal() {
	cov := mat.NewSymDense(2, []float64{1, 0.8, 0.8, 1})
	d := dist.NewMultivariateNormal([]float64{0, 0}, cov)
	lp := d.LogProb(mat.NewDense(2, 2, []float64{0, 0, 1, -1}))
	fmt.Printf("%.4f\n", lp)
	// Output: [-1.3271 -6.3271]
}
