package diag

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"gonum.org/v1/gonum/mat"
)

// TestExpectedLogProbUnnormalized checks that the expected log posterior density is not
// reported as one for estimators whose LogProbPairs leaves out a constant per observation: a
// likelihood estimator's log p(θ) + log q(x | θ) (off by log p(x)) and NRE-B's (off by a
// c(x) its loss leaves free, alone or in an ensemble). Their results must say why
// (Unnormalized), and their summaries must not read as a log posterior density compared with
// the prior's; estimators of the normalized density (NPE, NRE-A) keep the plain result.
func TestExpectedLogProbUnnormalized(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	prior := dist.NewStandardNormal(1)
	theta := prior.Sample(rng, 200)
	x := mat.NewDense(200, 2, nil)
	for i := range 200 {
		x.SetRow(i, []float64{theta.At(i, 0) + 0.5*rng.NormFloat64(), rng.NormFloat64()})
	}
	trained := func(e sbi.Estimator) sbi.Estimator {
		if _, err := e.Train(theta, x, sbi.TrainConfig{Epochs: 2, Seed: 1}); err != nil {
			t.Fatal(err)
		}
		return e
	}
	nreB := func() *sbi.NRE {
		return trained(sbi.NewNRE(prior, sbi.NREConfig{Hidden: []int{8}, Loss: sbi.NREB})).(*sbi.NRE)
	}
	for _, c := range []struct {
		name string
		est  sbi.Estimator
		want string // in Unnormalized; "" for none
	}{
		{"NPE", trained(sbi.NewNPE(prior, sbi.NPEConfig{Hidden: 8, Transforms: 1})), ""},
		{"NRE-A", trained(sbi.NewNRE(prior, sbi.NREConfig{Hidden: []int{8}})), ""},
		{"NLE", trained(sbi.NewNLE(prior, sbi.NLEConfig{Hidden: 8, Transforms: 1})), "log p(x)"},
		{"NRE-B", nreB(), "c(x)"},
		{"NRE-B ensemble", sbi.MustNewNREEnsemble(nreB(), nreB()), "c(x)"},
	} {
		r, err := ExpectedLogProb(c.est, prior, theta, x)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		s := r.String()
		switch {
		case c.want == "" && (r.Unnormalized != "" || !strings.Contains(s, "prior")):
			t.Errorf("%s: Unnormalized %q, summary %q; expected none, and the prior's value", c.name, r.Unnormalized, s)
		case c.want != "" && !strings.Contains(r.Unnormalized, c.want):
			t.Errorf("%s: Unnormalized %q, expected one naming %s", c.name, r.Unnormalized, c.want)
		case c.want != "" && (!strings.Contains(s, "not measured") || strings.Contains(s, "prior -")):
			t.Errorf("%s: summary %q, expected one saying the density is not measured, without the prior's value", c.name, s)
		}
	}
}

// TestExpectedLogProbTrialsUnnormalized checks the same for an estimator of single trials
// serving observations of several trials (Trials): log p(θ) + Σₜ log q(xₜ | θ) lacks
// −log p(x₁ … x_N) even for NRE-A, whose single-trial value is normalized, so the result says
// so; of one trial it is the estimator's own.
func TestExpectedLogProbTrialsUnnormalized(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	prior := dist.NewStandardNormal(1)
	theta := prior.Sample(rng, 200)
	x := mat.NewDense(200, 3, nil) // 3 trials of one value
	for i := range 200 {
		for k := range 3 {
			x.Set(i, k, theta.At(i, 0)+0.5*rng.NormFloat64())
		}
	}
	single := mat.DenseCopyOf(x.Slice(0, 200, 0, 1))
	cfg := sbi.TrainConfig{Epochs: 2, Seed: 1}
	nle := sbi.NewNLE(prior, sbi.NLEConfig{Hidden: 8, Transforms: 1})
	nre := sbi.NewNRE(prior, sbi.NREConfig{Hidden: []int{8}})
	for _, e := range []sbi.Estimator{nle, nre} {
		if _, err := e.Train(theta, single, cfg); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		est  sbi.Amortized
		x    *mat.Dense
		want string // in Unnormalized; "" for none
	}{
		{"NLE of 3 trials", nle.Trials(3), x, "log p(x₁ … x_N)"},
		{"NRE-A of 3 trials", nre.Trials(3), x, "log p(x₁ … x_N)"},
		{"NLE of 1 trial", nle.Trials(1), single, "log p(x)"},
		{"NRE-A of 1 trial", nre.Trials(1), single, ""},
	} {
		r, err := ExpectedLogProb(c.est, prior, theta, c.x)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.want == "" && r.Unnormalized != "" || !strings.Contains(r.Unnormalized, c.want) {
			t.Errorf("%s: Unnormalized %q, expected one naming %q", c.name, r.Unnormalized, c.want)
		}
	}
}
