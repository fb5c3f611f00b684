package sbi_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/task"
	"gonum.org/v1/gonum/mat"
)

// meanOf returns the mean of column j of the draws.
func meanOf(draws *mat.Dense, j int) float64 {
	n, _ := draws.Dims()
	var m float64
	for i := 0; i < n; i++ {
		m += draws.At(i, j) / float64(n)
	}
	return m
}

func ExampleNewNLE() {
	prior, theta, x := conjugate(2000)
	nle := sbi.NewNLE(prior, sbi.NLEConfig{Hidden: 32, Transforms: 2})
	if _, err := nle.Train(theta, x, sbi.TrainConfig{Epochs: 20, BatchSize: 100, LearningRate: 2e-3, Seed: 1}); err != nil {
		fmt.Println(err)
		return
	}
	// p(θ)·q(x | θ): two parameters and a box prior, so the posterior samples on an exact grid;
	// Method "mcmc" runs slice samplers over many chains, "importance" resamples prior draws.
	post := nle.PosteriorAt([]float64{0.5, -0.5})
	draws := post.Sample(rand.New(rand.NewPCG(3, 4)), 2000)
	// The exact posterior mean is (0.5, −0.5) with sd 0.3.
	fmt.Println(post.Method(), "mean within 0.1 of (0.5, -0.5):", math.Abs(meanOf(draws, 0)-0.5) < 0.1 && math.Abs(meanOf(draws, 1)+0.5) < 0.1)
	// Output: grid mean within 0.1 of (0.5, -0.5): true
}

// A likelihood (or ratio) estimator trained on single trials serves an observation of many
// i.i.d. trials: their log-likelihoods add.
func ExampleNLE_PosteriorTrials() {
	prior, theta, x := conjugate(2000)
	nle := sbi.NewNLE(prior, sbi.NLEConfig{Hidden: 32, Transforms: 2})
	if _, err := nle.Train(theta, x, sbi.TrainConfig{Epochs: 20, BatchSize: 100, LearningRate: 2e-3, Seed: 1}); err != nil {
		fmt.Println(err)
		return
	}
	// 25 trials of θ = (0.5, −0.5): the posterior sd shrinks from 0.3 to 0.3/√25 = 0.06.
	rng := rand.New(rand.NewPCG(7, 7))
	xs := mat.NewDense(25, 2, nil)
	for t := 0; t < 25; t++ {
		xs.SetRow(t, []float64{0.5 + 0.3*rng.NormFloat64(), -0.5 + 0.3*rng.NormFloat64()})
	}
	post := nle.PosteriorTrialsWith(xs, sbi.SamplerConfig{Method: sbi.SamplerMCMC, Chains: 20, BurnIn: 100, Thin: 1})
	draws := post.Sample(rand.New(rand.NewPCG(3, 4)), 1000)
	n, _ := draws.Dims()
	var v float64
	m := meanOf(draws, 0)
	for i := 0; i < n; i++ {
		v += (draws.At(i, 0) - m) * (draws.At(i, 0) - m) / float64(n-1)
	}
	fmt.Println("sd of θ1 between 0.04 and 0.08:", math.Sqrt(v) > 0.04 && math.Sqrt(v) < 0.08)
	// Output: sd of θ1 between 0.04 and 0.08: true
}

// MNLE models a simulator whose output mixes continuous and discrete columns: here sbi's toy
// decision-making model, a reaction time and a choice.
func ExampleNewMNLE() {
	tk := task.Mixed() // θ = (β, ρ); x = (τ, c): τ ~ InverseGamma(2, β), c ~ Bernoulli(ρ)
	rng := rand.New(rand.NewPCG(1, 2))
	theta := tk.Prior().Sample(rng, 5000)
	x := tk.Simulate(rng, theta)
	mnle := sbi.NewMNLE(tk.Prior(), sbi.MNLEConfig{LogTransform: true}) // the choice is the last column
	if _, err := mnle.Train(theta, x, sbi.TrainConfig{Epochs: 40, BatchSize: 100, LearningRate: 1e-3, Seed: 1}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("categories:", mnle.Config().Categories)
	// 10 trials at β = 1.5, ρ = 0.6, against the exact posterior.
	xs := mat.NewDense(10, 2, nil)
	for t := 0; t < 10; t++ {
		xs.SetRow(t, tk.Simulate(rng, mat.NewDense(1, 2, []float64{1.5, 0.6})).RawRowView(0))
	}
	exact, err := tk.ExactPosteriorTrials(xs)
	if err != nil {
		fmt.Println(err)
		return
	}
	mean, cov, _ := dist.MeanCov(exact)
	post := mnle.PosteriorTrialsWith(xs, sbi.SamplerConfig{Method: sbi.SamplerMCMC, Chains: 20, BurnIn: 100, Thin: 1})
	draws := post.Sample(rand.New(rand.NewPCG(3, 4)), 500)
	fmt.Println("posterior mean of ρ within 0.5 sd of the exact one:", math.Abs(meanOf(draws, 1)-mean[1]) < 0.5*math.Sqrt(cov.At(1, 1)))
	// Output:
	// categories: [2]
	// posterior mean of ρ within 0.5 sd of the exact one: true
}

// MAP is the mode of any posterior, found by local searches from its draws of highest density.
func ExampleMAP() {
	// A skewed posterior, Gamma(3, rate 2), whose mode (k − 1)/r = 1 differs from its mean 1.5.
	post := dist.NewGamma([]float64{3}, []float64{2})
	mode, err := sbi.MAP(post, sbi.MAPConfig{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.4f\n", mode[0])
	// Output: 1.0000
}

func ExampleRatioPosterior_MAP() {
	prior, theta, x := conjugate(2000)
	nle := sbi.NewNLE(prior, sbi.NLEConfig{Hidden: 32, Transforms: 2})
	if _, err := nle.Train(theta, x, sbi.TrainConfig{Epochs: 20, BatchSize: 100, LearningRate: 2e-3, Seed: 1}); err != nil {
		fmt.Println(err)
		return
	}
	mode, err := nle.PosteriorAt([]float64{0.5, -0.5}).MAP()
	if err != nil {
		fmt.Println(err)
		return
	}
	// The exact mode is (0.5, −0.5), with posterior sd 0.3.
	fmt.Println("MAP within 0.1 of (0.5, -0.5):", math.Abs(mode[0]-0.5) < 0.1 && math.Abs(mode[1]+0.5) < 0.1)
	// Output: MAP within 0.1 of (0.5, -0.5): true
}

// NLE's flow models x given θ, so its embedding summarizes θ: a network trained with the
// flow, saved with it. Embeddings that read x as a series, image or set do not apply to θ
// and are refused.
func ExampleNLEConfig_embedding() {
	prior, theta, x := conjugate(2000)
	nle := sbi.NewNLE(prior, sbi.NLEConfig{Hidden: 32, Transforms: 2,
		Embedding: sbi.MLPEmbedding{Hidden: []int{32}, Out: 8}})
	if _, err := nle.Train(theta, x, sbi.TrainConfig{Epochs: 20, BatchSize: 100, LearningRate: 2e-3, Seed: 1}); err != nil {
		fmt.Println(err)
		return
	}
	post := nle.PosteriorAt([]float64{0.5, -0.5})
	draws := post.Sample(rand.New(rand.NewPCG(3, 4)), 2000)
	// The exact posterior mean is (0.5, −0.5) with sd 0.3.
	fmt.Println("mean within 0.1 of (0.5, -0.5):", math.Abs(meanOf(draws, 0)-0.5) < 0.1 && math.Abs(meanOf(draws, 1)+0.5) < 0.1)

	cnn := sbi.NewNLE(prior, sbi.NLEConfig{Embedding: sbi.CNN1DEmbedding{Channels: 1}})
	_, err := cnn.Train(theta, x, sbi.TrainConfig{Epochs: 1})
	fmt.Println("a CNN of θ refused:", err != nil)
	// Output:
	// mean within 0.1 of (0.5, -0.5): true
	// a CNN of θ refused: true
}
