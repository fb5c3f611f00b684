package sbi

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/dist"
)

// TestPosteriorDrawsIndependentOfCores checks that every sampler returns the same bits for the
// same seed whether the flow draws, the network evaluations and the compute kernels run on 1 or
// 2 cores (GOMAXPROCS and runenv.Threads): NPE's and FMPE's rejection from the prior's box,
// and NRE's and NLE's MCMC, grid and importance sampling. 3000 draws span several of the
// parallel draws' chunks.
func TestPosteriorDrawsIndependentOfCores(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	prior := dist.NewUniformCube(-1, 1, 2)
	theta := prior.Sample(rng, 1000)
	x := mat.NewDense(1000, 2, nil)
	for i := range 1000 {
		for j := range 2 {
			x.Set(i, j, theta.At(i, j)+0.3*rng.NormFloat64())
		}
	}
	cfg := TrainConfig{Epochs: 3, Seed: 1}
	npe := NewNPE(prior, NPEConfig{Hidden: 16, Transforms: 2})
	fm := NewFMPE(prior, FMPEConfig{Hidden: 16, Layers: 2})
	nre := NewNRE(prior, NREConfig{Hidden: []int{16}})
	nle := NewNLE(prior, NLEConfig{Hidden: 16, Transforms: 2, Sampler: SamplerConfig{Method: SamplerMCMC}})
	for _, e := range []Estimator{npe, fm, nre, nle} {
		if _, err := e.Train(theta, x, cfg); err != nil {
			t.Fatal(err)
		}
	}
	obs := []float64{0.2, -0.1}
	posts := map[string]Posterior{"NPE": npe.Posterior(obs), "FMPE": fm.Posterior(obs), "NLE mcmc": nle.Posterior(obs)}
	for _, m := range []SamplerMethod{SamplerMCMC, SamplerGrid, SamplerImportance} {
		nre.cfg.Sampler = SamplerConfig{Method: m}
		posts["NRE "+string(m)] = nre.Posterior(obs)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	defer runenv.SetThreads(0)
	for name, p := range posts {
		var draws [2]*mat.Dense
		for k, cores := range []int{1, 2} {
			runtime.GOMAXPROCS(cores)
			runenv.SetThreads(cores)
			var err error
			draws[k], err = p.(contextSampler).SampleContext(t.Context(), rand.New(rand.NewPCG(5, 6)), 3000)
			if err != nil {
				t.Fatalf("%s on %d cores: %v", name, cores, err)
			}
		}
		a, b := draws[0].RawMatrix().Data, draws[1].RawMatrix().Data
		for i := range a {
			if a[i] != b[i] {
				t.Errorf("%s: value %d is %v on 1 core and %v on 2, want the same bits", name, i, a[i], b[i])
				break
			}
		}
	}
}
