package dist_test

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/dist"
)

// A product of independent normals: LogProb takes one parameter vector per row and sums the
// coordinates' log densities.
func ExampleNormal_LogProb() {
	prior := dist.NewNormal([]float64{0, 1}, []float64{1, 2})
	lp := prior.LogProb(mat.NewDense(2, 2, []float64{
		0, 1, // the mean
		1, 3, // one standard deviation away in each coordinate
	}))
	fmt.Printf("%.4f %.4f\n", lp[0], lp[1])
	fmt.Println(prior.Mean(), prior.Std())
	// Output:
	// -2.5310 -3.5310
	// [0 1] [1 2]
}

// A Beta prior for a probability: its support is the unit interval, and the density of
// Beta(2, 5) at 0.2 is 30·0.2·0.8⁴ = 2.4576.
func ExampleNewBeta() {
	prior := dist.NewBeta([]float64{2}, []float64{5})
	low, high := prior.Support()
	lp := prior.LogProb(mat.NewDense(2, 1, []float64{0.2, 1.5}))
	fmt.Printf("support [%v, %v], mean %.4f, log density at 0.2 %.4f, at 1.5 %v\n", low[0], high[0], prior.Mean()[0], lp[0], lp[1])
	draws := prior.Sample(rand.New(rand.NewPCG(1, 2)), 1000)
	fmt.Println("draws in the support:", mat.Min(draws) > 0 && mat.Max(draws) < 1)
	// Output:
	// support [0, 1], mean 0.2857, log density at 0.2 0.8992, at 1.5 -Inf
	// draws in the support: true
}

// Unconstrain maps all of R^d onto the interior of a prior's support box (a logistic map for a
// bounded coordinate, exp for one bounded below), for samplers that need an unbounded space.
func ExampleUnconstrain() {
	prior := dist.NewIndependent(
		dist.NewBoxUniform([]float64{0}, []float64{4}),
		dist.NewGamma([]float64{2}, []float64{1}),
	)
	m := dist.Unconstrain(prior)
	theta := make([]float64, 2)
	m.Forward([]float64{0, 0}, theta)
	u := make([]float64, 2)
	ok := m.Inverse([]float64{3, 0.5}, u)
	fmt.Printf("u = (0, 0) ↦ θ = %.4f; θ = (3, 0.5) ↦ u = %.4f (%v)\n", theta, u, ok)
	// log|∂θ/∂u| at u = (0, 0): log 4 + 2·log σ(0) for the box, 0 for exp.
	fmt.Printf("log|det J| = %.4f\n", m.LogAbsDetJacobian([]float64{0, 0}))
	// Output:
	// u = (0, 0) ↦ θ = [2.0000 1.0000]; θ = (3, 0.5) ↦ u = [1.0986 -0.6931] (true)
	// log|det J| = 0.0000
}
