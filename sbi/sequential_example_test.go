package sbi_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"gonum.org/v1/gonum/mat"
)

// noisyCopy is a batch simulator: x = θ + 0.3·ε, two values per row.
type noisyCopy struct{}

func (noisyCopy) DataDim() int { return 2 }

func (noisyCopy) SimulateBatch(rng *rand.Rand, theta, x *mat.Dense) {
	n, _ := theta.Dims()
	for i := 0; i < n; i++ {
		for j := 0; j < 2; j++ {
			x.Set(i, j, theta.At(i, j)+0.3*rng.NormFloat64())
		}
	}
}

// TSNPE: two rounds of 1,000 simulations for one observation, the second drawn from the prior
// truncated to the first posterior's highest-density region at 1 − 10⁻⁴.
func ExampleSequential() {
	prior := dist.NewUniformCube(-2, 2, 2)
	npe := sbi.NewNPE(prior, sbi.NPEConfig{Hidden: 32, Transforms: 2})
	xo := []float64{0.5, -1}
	res, err := sbi.Sequential(npe, noisyCopy{}, xo, sbi.SequentialConfig{
		Rounds: 2, Simulations: 1000, Seed: 1,
		Train: sbi.TrainConfig{Epochs: 30, BatchSize: 100, LearningRate: 1e-3, Seed: 1},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res.Rounds {
		fmt.Printf("round %d: %d simulations from the %s, %d pairs in training\n", r.Round, r.Simulations, r.Proposal, r.Pairs)
	}
	// The region of a posterior of sd 0.3 holds a small share of the box's mass.
	fmt.Println("acceptance below 0.5:", res.Rounds[1].Acceptance < 0.5)
	draws := res.Posterior.Sample(rand.New(rand.NewPCG(1, 1)), 2000)
	// Its mean is xo's within half a posterior standard deviation (the draws' own error is 0.007).
	m0, m1 := mat.Sum(draws.ColView(0))/2000, mat.Sum(draws.ColView(1))/2000
	fmt.Println("posterior mean within 0.15 of xo:", math.Abs(m0-xo[0]) < 0.15 && math.Abs(m1-xo[1]) < 0.15)
	// Output:
	// round 1: 1000 simulations from the prior, 1000 pairs in training
	// round 2: 1000 simulations from the truncated prior, 2000 pairs in training
	// acceptance below 0.5: true
	// posterior mean within 0.15 of xo: true
}
