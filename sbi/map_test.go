package sbi_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/sbitest"
	"gonum.org/v1/gonum/mat"
)

// TestMAPClosedForm checks MAP on distributions whose mode is known: a correlated Gaussian
// (mode = mean), a Gamma × log-normal product (mode ((k−1)/r, exp(μ − σ²)), away from its mean,
// so that returning the mean fails), and an equal mixture of a narrow and a wide Gaussian,
// whose mode is the narrow one's centre (to 10⁻⁵: the wide one's slope there is below 10⁻³ of
// the narrow one's curvature). The local searches stop on a change of 10⁻¹⁰ in log-density,
// which for these curvatures leaves the point within 10⁻⁴ of the mode, while the best of the
// 1000 draws is typically 0.05 standard deviations away: 10⁻³ is the tolerance.
func TestMAPClosedForm(t *testing.T) {
	cov := mat.NewSymDense(2, []float64{1, -0.6, -0.6, 0.5})
	skew := dist.NewIndependent(dist.NewGamma([]float64{3}, []float64{2}), dist.NewLogNormal([]float64{0.5}, []float64{0.4}))
	mix := &sbi.MixturePosterior{Members: []sbi.Posterior{
		dist.NewNormal([]float64{-2, 1}, []float64{0.3, 0.3}),
		dist.NewNormal([]float64{2, 1}, []float64{1, 1}),
	}}
	for _, c := range []struct {
		name string
		p    sbi.Posterior
		mode []float64
	}{
		{"gaussian", dist.NewMultivariateNormal([]float64{0.3, -1.2}, cov), []float64{0.3, -1.2}},
		{"gamma×lognormal", skew, []float64{1, math.Exp(0.5 - 0.16)}},
		{"bimodal mixture", mix, []float64{-2, 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := sbi.MAP(c.p, sbi.MAPConfig{Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			for j := range got {
				if math.Abs(got[j]-c.mode[j]) > 1e-3 {
					t.Errorf("MAP %v, mode %v", got, c.mode)
					break
				}
			}
		})
	}
}

// TestMAPTrained checks Posterior(x).MAP of every estimator (NPE, NRE, NLE and both ensembles,
// trained on GaussianLinear at the conformance suite's budget) against the closed-form mode,
// the posterior mean: within sbitest.DefaultAllowance posterior standard deviations, the error
// the suite allows these estimators' posteriors at that budget.
func TestMAPTrained(t *testing.T) {
	task := sbitest.NewGaussianLinear(1)
	rng := rand.New(rand.NewPCG(27, 2))
	theta := task.Prior().Sample(rng, 4000)
	x := task.Simulate(rng, theta)
	xo := task.Simulate(rand.New(rand.NewPCG(5, 5)), mat.NewDense(1, 2, []float64{1, -1})).RawRowView(0)
	want := task.Posterior(xo)
	cfg := sbi.TrainConfig{Epochs: 40, BatchSize: 100, LearningRate: 1e-3, Seed: 1}
	train := func(e interface {
		Train(*mat.Dense, *mat.Dense, sbi.TrainConfig) (*sbi.TrainResult, error)
	}, seed uint64) {
		c := cfg
		c.Seed = seed
		if _, err := e.Train(theta, x, c); err != nil {
			t.Fatal(err)
		}
	}
	npe1, npe2 := sbi.NewNPE(task.Prior(), sbi.NPEConfig{Hidden: 32, Transforms: 2}), sbi.NewNPE(task.Prior(), sbi.NPEConfig{Hidden: 32, Transforms: 2})
	nre1, nre2 := sbi.NewNRE(task.Prior(), sbi.NREConfig{Hidden: []int{32, 32}}), sbi.NewNRE(task.Prior(), sbi.NREConfig{Hidden: []int{32, 32}})
	nle := sbi.NewNLE(task.Prior(), sbi.NLEConfig{Hidden: 32, Transforms: 2})
	train(npe1, 1)
	train(npe2, 2)
	train(nre1, 1)
	train(nre2, 2)
	train(nle, 1)
	npes, err := sbi.NewNPEEnsemble(npe1, npe2)
	if err != nil {
		t.Fatal(err)
	}
	nres, err := sbi.NewNREEnsemble(nre1, nre2)
	if err != nil {
		t.Fatal(err)
	}
	type mapper interface{ MAP() ([]float64, error) }
	for _, c := range []struct {
		name string
		post mapper
	}{
		{"NPE", npe1.PosteriorAt(xo)},
		{"NRE", nre1.PosteriorWith(xo, sbi.SamplerConfig{})},
		{"NLE", nle.PosteriorAt(xo)},
		{"NPE ensemble", npes.Posterior(xo).(*sbi.MixturePosterior)},
		{"NRE ensemble", nres.Posterior(xo).(*sbi.RatioPosterior)},
	} {
		got, err := c.post.MAP()
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		mean, cov := want.Mean(), want.Covariance()
		for j := range got {
			if sd := math.Sqrt(cov.At(j, j)); math.Abs(got[j]-mean[j]) > sbitest.DefaultAllowance*sd {
				t.Errorf("%s: MAP %v, closed-form mode %v ± %.2f sd", c.name, got, mean, sbitest.DefaultAllowance)
				break
			}
		}
	}
}

// TestMAPErrors checks that MAP says why it cannot answer: an untrained estimator, a bad
// configuration, a cancelled context.
func TestMAPErrors(t *testing.T) {
	prior := dist.NewNormal([]float64{0, 0}, []float64{1, 1})
	if _, err := sbi.NewNLE(prior, sbi.NLEConfig{}).PosteriorAt([]float64{0}).MAP(); err == nil || !strings.Contains(err.Error(), "not trained") {
		t.Errorf("untrained NLE: error %v, expected one saying it is not trained", err)
	}
	if _, err := sbi.MAP(prior, sbi.MAPConfig{Draws: 5, Starts: 10}); err == nil {
		t.Error("Starts > Draws: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sbi.MAPContext(ctx, prior, sbi.MAPConfig{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: error %v, expected one wrapping context.Canceled", err)
	}
	if got := sbi.MustMAP(prior, sbi.MAPConfig{}); math.Abs(got[0]) > 1e-3 || math.Abs(got[1]) > 1e-3 {
		t.Errorf("MustMAP of N(0, I): %v", got)
	}
}

// spikedNormal is N(0, I) in 2 dimensions whose log-density is +Inf within 0.3 of (0.5, 0.5): a
// density that is not finite there (a flow's overflow looks like this).
type spikedNormal struct{ *dist.Normal }

func (s spikedNormal) LogProb(theta *mat.Dense) []float64 {
	lp := s.Normal.LogProb(theta)
	for i := range lp {
		if math.Hypot(theta.At(i, 0)-0.5, theta.At(i, 1)-0.5) < 0.3 {
			lp[i] = math.Inf(1)
		}
	}
	return lp
}

// TestMAPInfiniteDensity: a posterior whose log-density is +Inf somewhere has no mode to
// report; MAP says so with an error instead of returning a point of the spike as the mode.
func TestMAPInfiniteDensity(t *testing.T) {
	p := spikedNormal{dist.NewNormal([]float64{0, 0}, []float64{1, 1})}
	got, err := sbi.MAP(p, sbi.MAPConfig{Seed: 3})
	if err == nil || !strings.Contains(err.Error(), "+Inf") {
		t.Errorf("MAP = %v, error %v; want an error saying the log-density is +Inf", got, err)
	}
}
