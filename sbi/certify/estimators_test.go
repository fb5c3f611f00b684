package certify

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/flow"
	"github.com/gosbi/gosbi/sbi/internal/safe"
)

// mixedSimulator is gaussSimulator with a discrete column appended: x = (θ + ε, b) with
// ε ~ N(0, 1) and b ~ Bernoulli(Φ(θ)), for the mixed-data estimator (MNLE).
type mixedSimulator struct{}

func (mixedSimulator) DataDim() int { return 2 }

func (mixedSimulator) SimulateBatch(rng *rand.Rand, theta, x *mat.Dense) {
	n, _ := theta.Dims()
	for i := range n {
		th := theta.At(i, 0)
		x.Set(i, 0, th+rng.NormFloat64())
		b := 0.0
		if rng.Float64() < 0.5*math.Erfc(-th/math.Sqrt2) {
			b = 1
		}
		x.Set(i, 1, b)
	}
}

// Certify works with every estimator of package sbi: each, trained by Certify on an easy
// conjugate task (θ ~ N(0, 1), x ~ N(θ, 1), posterior N(x/2, ½); for MNLE a Bernoulli(Φ(θ))
// column besides), is judged on 1,000 fresh test pairs and certified at a target of ±0.08 at
// the default levels. The test looks for defects of Certify with one kind of estimator (an
// error, the posterior of another observation, a density the ranks misread), which put the
// coverage far off; the tolerance leaves room for the small estimators' own bias (up to 0.03
// seen at 1,500 pairs), and with 1,000 pairs the one-sided 95 % Clopper–Pearson margin at level
// 0.5 is about 0.026, so an estimator within 0.054 of every level is certified, and one 0.11 off
// (a posterior 0.75 times as wide as the true one, at level 0.5: 2Φ(0.75·0.674) − 1 = 0.39)
// almost never.
// The likelihood and ratio estimators sample by importance resampling from the prior (a
// Gaussian prior has no grid; the default MCMC would cost minutes here), the ensembles are
// trained by Certify as any estimator is, and FMPE's field is small with loose ODE tolerances (its
// densities integrate an ODE per draw: at the defaults this case alone takes minutes). FMPE is
// judged on 1,500 pairs with 200 draws each: on 1,000 pairs with 100 draws its coverage at 0.5
// came out 0.445–0.45, on 1,500 with 200 0.48–0.49.
func TestCertifyWithEachEstimator(t *testing.T) {
	if testing.Short() {
		t.Skip("trains one estimator of each kind")
	}
	prior := gaussPrior()
	is := sbi.SamplerConfig{Method: sbi.SamplerImportance}
	nre := func(l sbi.NRELoss) func() sbi.Estimator {
		return func() sbi.Estimator { return sbi.NewNRE(prior, sbi.NREConfig{Loss: l, Sampler: is}) }
	}
	cases := []struct {
		name string
		sim  sbi.Simulator
		new  func() sbi.Estimator
		// tests and samples override the 1,000 test pairs and 100 draws per pair
		tests, samples int
	}{
		{"NPE (MAF)", gaussSimulator{}, func() sbi.Estimator { return sbi.NewNPE(prior, sbi.NPEConfig{}) }, 0, 0},
		{"NPE (NSF)", gaussSimulator{}, func() sbi.Estimator { return sbi.NewNPE(prior, sbi.NPEConfig{Flow: flow.NSF}) }, 0, 0},
		{"FMPE", gaussSimulator{}, func() sbi.Estimator {
			return sbi.NewFMPE(prior, sbi.FMPEConfig{Hidden: 32, Layers: 3, RelTol: 1e-4, AbsTol: 1e-5})
		}, 1500, 200},
		{"NLE", gaussSimulator{}, func() sbi.Estimator { return sbi.NewNLE(prior, sbi.NLEConfig{Sampler: is}) }, 0, 0},
		{"MNLE", mixedSimulator{}, func() sbi.Estimator { return sbi.NewMNLE(prior, sbi.MNLEConfig{Sampler: is}) }, 0, 0},
		{"NRE-A", gaussSimulator{}, nre(sbi.NREA), 0, 0},
		{"NRE-B", gaussSimulator{}, nre(sbi.NREB), 0, 0},
		{"NRE-C", gaussSimulator{}, nre(sbi.NREC), 0, 0},
		{"NPE ensemble", gaussSimulator{}, func() sbi.Estimator {
			return safe.Must(sbi.NewNPEEnsemble(sbi.NewNPE(prior, sbi.NPEConfig{}), sbi.NewNPE(prior, sbi.NPEConfig{})))
		}, 0, 0},
		{"NRE ensemble", gaussSimulator{}, func() sbi.Estimator {
			return safe.Must(sbi.NewNREEnsemble(nre(sbi.NREA)().(*sbi.NRE), nre(sbi.NREA)().(*sbi.NRE)))
		}, 0, 0},
	}
	for i, c := range cases {
		tests, samples := 1000, 100
		if c.tests > 0 {
			tests, samples = c.tests, c.samples
		}
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			cert, err := Certify(prior, c.sim, nil, Config{Target: Target{Tolerance: 0.08},
				Simulations: 3000 + tests, TestSimulations: tests,
				Samples: samples, SBCSamples: -1, Seed: uint64(20 + i), New: c.new,
				Train: sbi.TrainConfig{Epochs: 100}, Remedies: NoRemedies()})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%.1f s: %s", time.Since(start).Seconds(), cert.Sentence())
			if !cert.Certified() {
				t.Errorf("%s on the conjugate task: %s", c.name, cert.Sentence())
			}
		})
	}
}
