package sbi_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"gonum.org/v1/gonum/mat"
)

// trainedNPE trains a small NPE on the conjugate model of the examples (posterior N(x, 0.09·I)
// for an x well inside the box).
func trainedNPE() *sbi.NPE {
	prior, theta, x := conjugate(1000)
	npe := sbi.NewNPE(prior, sbi.NPEConfig{Hidden: 16, Transforms: 2})
	npe.MustTrain(theta, x, sbi.TrainConfig{Epochs: 10, BatchSize: 100, LearningRate: 2e-3, Seed: 1})
	return npe
}

// The posterior's LogProb evaluates log q(θ | xo) for a batch of parameters, one per row: it is
// highest near the posterior mean xo and −Inf outside the prior's support.
func ExamplePosterior_LogProb() {
	post := trainedNPE().Posterior([]float64{0.5, -0.5})
	lp := post.LogProb(mat.NewDense(3, 2, []float64{
		0.5, -0.5, // the posterior mean
		1.5, 0.5, // more than three posterior standard deviations away
		3, 0, // outside the prior box [−2, 2]²
	}))
	fmt.Println("denser at the mean:", lp[0] > lp[1], "outside the prior:", lp[2])
	// Output: denser at the mean: true outside the prior: -Inf
}

// An amortized estimator serves many observations without retraining: SampleMany draws from
// the posterior of every row of xs, in parallel, each from its own stream of rng.
func ExampleSampleMany() {
	npe := trainedNPE()
	xs := mat.NewDense(3, 2, []float64{
		0, 0,
		1, -1,
		-1, 1,
	})
	draws, err := sbi.SampleMany(npe, rand.New(rand.NewPCG(1, 2)), xs, 500)
	if err != nil {
		fmt.Println(err)
		return
	}
	for k, d := range draws {
		r, c := d.Dims()
		m0, m1 := mat.Sum(d.ColView(0))/float64(r), mat.Sum(d.ColView(1))/float64(r)
		// The exact posterior mean is the observation, with sd 0.3.
		near := math.Abs(m0-xs.At(k, 0)) < 0.2 && math.Abs(m1-xs.At(k, 1)) < 0.2
		fmt.Printf("observation %d: %d×%d draws, mean near the observation: %v\n", k, r, c, near)
	}
	// Output:
	// observation 0: 500×2 draws, mean near the observation: true
	// observation 1: 500×2 draws, mean near the observation: true
	// observation 2: 500×2 draws, mean near the observation: true
}

// failing is a batch simulator that fails (writes NaN) for θ₁ > 1.5, as a solver that gives up.
type failing struct{}

func (failing) DataDim() int { return 2 }

func (failing) SimulateBatch(rng *rand.Rand, theta, x *mat.Dense) {
	n, _ := theta.Dims()
	for i := range n {
		if theta.At(i, 0) > 1.5 {
			x.Set(i, 0, math.NaN())
			x.Set(i, 1, math.NaN())
			continue
		}
		x.Set(i, 0, theta.At(i, 0)+0.3*rng.NormFloat64())
		x.Set(i, 1, theta.At(i, 1)+0.3*rng.NormFloat64())
	}
}

// SimulateBatch runs a compiled simulator (the counterpart of Python's simulate_for_sbi) on all
// cores, with the same result whatever their number, and drops the failed rows with a count;
// Kept maps the rows kept to the parameter rows they came from.
func ExampleSimulateBatch() {
	prior := dist.NewUniformCube(-2, 2, 2)
	rng := rand.New(rand.NewPCG(1, 2))
	theta := prior.Sample(rng, 1000)
	sim, err := sbi.SimulateBatch(rng, failing{}, theta)
	if err != nil {
		fmt.Println(err)
		return
	}
	kept, _ := sim.X.Dims()
	fmt.Println("kept:", kept, "dropped:", sim.Dropped, "total:", kept+sim.Dropped)
	fmt.Println("rows aligned:", sim.Theta.At(10, 0) == theta.At(sim.Kept[10], 0))
	// Output:
	// kept: 889 dropped: 111 total: 1000
	// rows aligned: true
}

// Simulations made elsewhere (read from files, say) may hold failed rows: DropInvalid keeps the
// pairs whose x is finite, as the estimators do when they train.
func ExampleDropInvalid() {
	theta := mat.NewDense(4, 1, []float64{0.1, 0.2, 0.3, 0.4})
	x := mat.NewDense(4, 2, []float64{
		1, 2,
		math.NaN(), 0,
		3, math.Inf(1),
		4, 5,
	})
	sim, err := sbi.DropInvalid(theta, x)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("kept rows:", sim.Kept, "dropped:", sim.Dropped, "x:", sim.X.RawMatrix().Data)
	// Output: kept rows: [0 3] dropped: 2 x: [1 2 4 5]
}

// A deep ensemble: Train trains every member on the same pairs with its own seed, and the
// posterior is the equal-weight mixture of the members' posteriors.
func ExampleNewNPEEnsemble() {
	prior, theta, x := conjugate(500)
	ens, err := sbi.NewNPEEnsemble(
		sbi.NewNPE(prior, sbi.NPEConfig{Hidden: 8, Transforms: 1}),
		sbi.NewNPE(prior, sbi.NPEConfig{Hidden: 8, Transforms: 1}),
		sbi.NewNPE(prior, sbi.NPEConfig{Hidden: 8, Transforms: 1}),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := ens.Train(theta, x, sbi.TrainConfig{Epochs: 3, Seed: 1}); err != nil {
		fmt.Println(err)
		return
	}
	post := ens.PosteriorAt([]float64{0.5, -0.5})
	draws := post.Sample(rand.New(rand.NewPCG(1, 2)), 100)
	r, c := draws.Dims()
	fmt.Println(len(post.Members), "members;", r, "×", c, "draws")
	// Output: 3 members; 100 × 2 draws
}

// SaveFile writes a trained estimator to one file (configuration, prior and weights) and
// LoadFile reads back whichever estimator a file holds, ready to sample.
func ExampleLoadFile() {
	dir, err := os.MkdirTemp("", "gosbi-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "npe.gosbi")
	npe := trainedNPE()
	if err := npe.SaveFile(path); err != nil {
		fmt.Println(err)
		return
	}
	est, err := sbi.LoadFile(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	theta := mat.NewDense(1, 2, []float64{0.4, -0.6})
	xo := mat.NewDense(1, 2, []float64{0.5, -0.5})
	same := est.LogProbPairs(theta, xo)[0] == npe.LogProbPairs(theta, xo)[0]
	fmt.Printf("%T trained: %v, same density: %v\n", est, est.Trained(), same)
	// Output: *sbi.NPE trained: true, same density: true
}

// NRE's classifier estimates log r(θ, x) = log p(x | θ)/p(x): a pair drawn from the joint
// scores above a pair whose θ and x do not belong together.
func ExampleNRE_LogRatio() {
	prior, theta, x := conjugate(1000)
	nre := sbi.NewNRE(prior, sbi.NREConfig{Hidden: []int{32, 32}})
	if _, err := nre.Train(theta, x, sbi.TrainConfig{Epochs: 20, BatchSize: 50, LearningRate: 2e-3, Seed: 1}); err != nil {
		fmt.Println(err)
		return
	}
	lr := nre.LogRatio(
		mat.NewDense(2, 2, []float64{0.5, -0.5, -1.5, 1.5}),
		mat.NewDense(2, 2, []float64{0.5, -0.5, 0.5, -0.5}),
	)
	fmt.Println("joint pair above 0:", lr[0] > 0, "mismatched pair below 0:", lr[1] < 0)
	// Output: joint pair above 0: true mismatched pair below 0: true
}

// The posterior of a ratio or likelihood estimator sampled by MCMC keeps the diagnostics of its
// chains: R̂ and effective sample sizes, with a verdict.
func ExampleRatioPosterior_MCMCHealth() {
	prior, theta, x := conjugate(1000)
	nle := sbi.NewNLE(prior, sbi.NLEConfig{Hidden: 16, Transforms: 2})
	if _, err := nle.Train(theta, x, sbi.TrainConfig{Epochs: 10, BatchSize: 100, LearningRate: 2e-3, Seed: 1}); err != nil {
		fmt.Println(err)
		return
	}
	post := nle.PosteriorWith([]float64{0.5, -0.5}, sbi.SamplerConfig{Method: sbi.SamplerMCMC, Chains: 10, BurnIn: 50, Thin: 2})
	if _, err := post.SampleContext(context.Background(), rand.New(rand.NewPCG(1, 2)), 1000); err != nil {
		fmt.Println(err)
		return
	}
	h := post.MCMCHealth()
	fmt.Println(h.Sampler, h.Chains, "chains of", h.Draws, "draws")
	fmt.Println("R̂ below 1.05:", h.MaxRhat() < 1.05, "ESS above 100:", h.MinESS() > 100)
	// Output:
	// slice 10 chains of 100 draws
	// R̂ below 1.05: true ESS above 100: true
}
