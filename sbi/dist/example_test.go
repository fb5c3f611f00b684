package dist_test

import (
	"fmt"
	"math/rand/v2"

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
