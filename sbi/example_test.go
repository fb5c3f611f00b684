package sbi_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"gonum.org/v1/gonum/mat"
)

// conjugate simulates n pairs of θ ~ U(−2, 2)², x = θ + 0.3·ε, whose posterior for an x well
// inside the box is N(x, 0.09·I).
func conjugate(n int) (dist.Distribution, *mat.Dense, *mat.Dense) {
	prior := dist.NewUniformCube(-2, 2, 2)
	rng := rand.New(rand.NewPCG(1, 2))
	theta := prior.Sample(rng, n)
	sim, err := sbi.Simulate(rng, func(r *rand.Rand, th []float64) []float64 {
		return []float64{th[0] + 0.3*r.NormFloat64(), th[1] + 0.3*r.NormFloat64()}
	}, theta)
	if err != nil {
		panic(err)
	}
	return prior, sim.Theta, sim.X
}

func ExampleNewNPE() {
	prior, theta, x := conjugate(500)
	npe := sbi.NewNPE(prior, sbi.NPEConfig{Flow: "nsf", Transforms: 3, Hidden: 32})
	res, err := npe.Train(theta, x, sbi.TrainConfig{Epochs: 5, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Estimator, "trained on", res.TrainRows, "pairs, validated on", res.ValRows)
	// Output: NPE (nsf) trained on 450 pairs, validated on 50
}

func ExampleNPE_Train() {
	prior, theta, x := conjugate(1000)
	x.Set(3, 0, math.NaN()) // a failed simulation
	npe := sbi.NewNPE(prior, sbi.NPEConfig{})
	res, err := npe.Train(theta, x, sbi.TrainConfig{Epochs: 5, BatchSize: 100, Seed: 7})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("dropped:", res.Dropped, "epochs:", res.Epochs, "losses:", len(res.TrainLoss), len(res.ValLoss))
	// Output: dropped: 1 epochs: 5 losses: 5 5
}

func ExampleNPE_Posterior() {
	prior, theta, x := conjugate(2000)
	npe := sbi.NewNPE(prior, sbi.NPEConfig{Hidden: 32, Transforms: 3})
	if _, err := npe.Train(theta, x, sbi.TrainConfig{Epochs: 20, BatchSize: 100, LearningRate: 2e-3, Seed: 1}); err != nil {
		fmt.Println(err)
		return
	}
	post := npe.Posterior([]float64{0.5, -0.5})
	draws := post.Sample(rand.New(rand.NewPCG(3, 4)), 2000)
	m := mat.NewVecDense(2, nil)
	for i := 0; i < 2000; i++ {
		m.AddScaledVec(m, 1.0/2000, draws.RowView(i))
	}
	// The exact posterior mean is (0.5, −0.5) with sd 0.3.
	fmt.Println("mean within 0.1 of (0.5, -0.5):", math.Abs(m.AtVec(0)-0.5) < 0.1 && math.Abs(m.AtVec(1)+0.5) < 0.1)
	// Output: mean within 0.1 of (0.5, -0.5): true
}

func ExampleNewNRE() {
	prior, theta, x := conjugate(1000)
	nre := sbi.NewNRE(prior, sbi.NREConfig{Hidden: []int{32, 32}})
	if _, err := nre.Train(theta, x, sbi.TrainConfig{Epochs: 20, BatchSize: 50, LearningRate: 2e-3, Seed: 1}); err != nil {
		fmt.Println(err)
		return
	}
	// Two parameters and a box prior: the posterior samples on an exact grid.
	post := nre.PosteriorWith([]float64{0.5, -0.5}, sbi.SamplerConfig{})
	draws := post.Sample(rand.New(rand.NewPCG(5, 6)), 2000)
	var m float64
	for i := 0; i < 2000; i++ {
		m += draws.At(i, 0) / 2000
	}
	fmt.Println(post.Method(), "mean of θ1 within 0.15 of 0.5:", math.Abs(m-0.5) < 0.15)
	// Output: grid mean of θ1 within 0.15 of 0.5: true
}

// Enumerated settings take the package's constants or the same names as string literals; an
// unknown name is an error that lists the known ones.
func ExampleNPEConfig() {
	prior := dist.NewUniformCube(-2, 2, 2)
	a := sbi.NewNPE(prior, sbi.NPEConfig{Flow: sbi.NSF, Activation: sbi.ELU}).Config()
	b := sbi.NewNPE(prior, sbi.NPEConfig{Flow: "nsf", Activation: "elu"}).Config()
	fmt.Println(a.Flow, a.Activation, a == b)
	_, err := sbi.NewNPE(prior, sbi.NPEConfig{Flow: "realnvp"}).Train(mat.NewDense(4, 2, nil), mat.NewDense(4, 2, nil), sbi.TrainConfig{})
	fmt.Println(err)
	// Output:
	// nsf elu true
	// NPE: flow: unknown kind "realnvp": want "maf" or "nsf"
}

// A pool of simulations drawn once gives nested budgets: each budget is the first n pairs.
func ExampleFirstRows() {
	_, theta, x := conjugate(4096)
	for _, n := range []int{1024, 4096} {
		th, err := sbi.FirstRows(theta, n)
		if err != nil {
			fmt.Println(err)
			return
		}
		xs, _ := sbi.FirstRows(x, n)
		r, _ := th.Dims()
		fmt.Println(r, xs.At(0, 0) == x.At(0, 0))
	}
	_, err := sbi.FirstRows(theta, 8192)
	fmt.Println(err)
	// Output:
	// 1024 true
	// 4096 true
	// sbi: FirstRows: n = 8192, expected 1…4096 (the rows of the matrix)
}

// Every estimator offers the same vocabulary, so code written against sbi.Estimator trains
// and queries any of them.
func ExampleEstimator() {
	prior, theta, x := conjugate(400)
	npes := sbi.MustNewNPEEnsemble(sbi.NewNPE(prior, sbi.NPEConfig{Hidden: 8}), sbi.NewNPE(prior, sbi.NPEConfig{Hidden: 8}))
	for _, e := range []sbi.Estimator{
		sbi.NewNPE(prior, sbi.NPEConfig{Hidden: 8}),
		sbi.NewNRE(prior, sbi.NREConfig{Hidden: []int{8}}),
		npes,
	} {
		e.MustTrain(theta, x, sbi.TrainConfig{Epochs: 2, Seed: 1})
		fmt.Println(e.Trained(), e.Posterior([]float64{0, 0}).Dim())
	}
	// Output:
	// true 2
	// true 2
	// true 2
}

// A service trains with its own context: cancelling it stops this training only, and an
// estimator that finished no epoch stays untrained.
func ExampleNPE_TrainContext() {
	prior, theta, x := conjugate(400)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // e.g. the client went away
	npe := sbi.NewNPE(prior, sbi.NPEConfig{})
	_, err := npe.TrainContext(ctx, theta, x, sbi.TrainConfig{Epochs: 5})
	fmt.Println(errors.Is(err, context.Canceled), npe.Trained())
	// Output: true false
}

// The error forms wrap exported sentinels that a caller branches on.
func ExampleErrUntrained() {
	prior, _, _ := conjugate(10)
	post := sbi.NewNRE(prior, sbi.NREConfig{}).PosteriorAt([]float64{0, 0})
	_, err := post.SampleContext(context.Background(), rand.New(rand.NewPCG(1, 1)), 10)
	fmt.Println(errors.Is(err, sbi.ErrUntrained))
	// Output: true
}
