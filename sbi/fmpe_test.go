package sbi_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/calib"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/sbitest"
	"gonum.org/v1/gonum/mat"
)

// conformanceFMPE is the FMPE of the conformance checks: a smaller field than the default and
// looser ODE tolerances, so that the suite's quadrature (121² log-densities at each of three
// observations, each an ODE solve) runs in seconds.
var conformanceFMPE = sbi.FMPEConfig{Hidden: 32, Layers: 2, RelTol: 1e-4, AbsTol: 1e-5}

// FMPE passes the conformance suite: posterior moments against the closed form (by
// quadrature of LogProb, which checks that it integrates to one, and from Sample), the
// agreement of LogProbPairs with Posterior(x).LogProb, non-finite values, the save/load round
// trip, concurrency and cancellation.
func TestConformanceFMPE(t *testing.T) {
	sbitest.TestEstimator(t, func(prior dist.Distribution) sbitest.Estimator {
		return sbi.NewFMPE(prior, conformanceFMPE)
	}, sbitest.Config{})
}

// FMPE conditions its field on an embedding of x: the suite on the task with 4 i.i.d. trials
// per observation, summarized by an MLPEmbedding learned with the field (the budget and
// allowance of sbitest.TestEmbedding).
func TestConformanceFMPEEmbedding(t *testing.T) {
	cfg := conformanceFMPE
	cfg.Embedding = sbi.MLPEmbedding{Hidden: []int{32}, Out: 4}
	sbitest.TestEstimator(t, func(prior dist.Distribution) sbitest.Estimator {
		return sbi.NewFMPE(prior, cfg)
	}, sbitest.Config{Trials: 4, Simulations: 10_000, Allowance: sbitest.EmbeddingAllowance})
}

func TestFMPEConfigDefaults(t *testing.T) {
	got := sbi.NewFMPE(dist.NewStandardNormal(2), sbi.FMPEConfig{}).Config()
	want := sbi.FMPEConfig{Hidden: 64, Layers: 5, Activation: sbi.ELU, Frequencies: 3, SigmaMin: 1e-3, RelTol: 1e-5, AbsTol: 1e-6}
	if got != want {
		t.Errorf("defaults %+v, expected sbi's %+v", got, want)
	}
}

// Configuration errors are reported by Train, naming the setting.
func TestFMPEConfigErrors(t *testing.T) {
	prior, theta, x := conjugate(200)
	for _, c := range []struct {
		cfg  sbi.FMPEConfig
		want string
	}{
		{sbi.FMPEConfig{Hidden: -1}, "Hidden"},
		{sbi.FMPEConfig{Layers: -2}, "Layers"},
		{sbi.FMPEConfig{Activation: "identity"}, "nonlinearity"},
		{sbi.FMPEConfig{Activation: "swish"}, "swish"},
		{sbi.FMPEConfig{SigmaMin: 1.5}, "SigmaMin"},
		{sbi.FMPEConfig{TimeExponent: -1}, "TimeExponent"},
		{sbi.FMPEConfig{Frequencies: -3}, "Frequencies"},
		{sbi.FMPEConfig{RelTol: math.NaN()}, "RelTol"},
		{sbi.FMPEConfig{RelTol: 1e-300, AbsTol: 1e-300}, "tighter than float64"},
		{sbi.FMPEConfig{AbsTol: 2}, "AbsTol = 2"},
	} {
		_, err := sbi.NewFMPE(prior, c.cfg).Train(theta, x, sbi.TrainConfig{Epochs: 1})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "FMPE") {
			t.Errorf("%+v: error %v, expected one naming FMPE and %s", c.cfg, err, c.want)
		}
	}
}

// An untrained FMPE refuses to evaluate, sample or save.
func TestFMPEUntrained(t *testing.T) {
	e := sbi.NewFMPE(dist.NewStandardNormal(2), sbi.FMPEConfig{})
	if err := e.Save(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "not trained") {
		t.Errorf("Save: %v, expected an error saying it is not trained", err)
	}
	post := e.PosteriorAt([]float64{0, 0})
	if _, err := post.SampleContext(context.Background(), rand.New(rand.NewPCG(1, 1)), 3); err == nil || !strings.Contains(err.Error(), "not trained") {
		t.Errorf("SampleContext: %v, expected an error saying it is not trained", err)
	}
	if !panicsWith(func() { e.LogProbPairs(mat.NewDense(1, 2, nil), mat.NewDense(1, 2, nil)) }, "not trained") {
		t.Error("LogProbPairs of an untrained FMPE did not panic saying so")
	}
}

func panicsWith(f func(), want string) (ok bool) {
	defer func() { ok = strings.Contains(fmt.Sprint(recover()), want) }()
	f()
	return false
}

// A regularizer that needs log-densities (the coverage regularizer) refuses FMPE with an
// error, instead of training with a term it cannot compute.
func TestFMPECoverageRegularizerRefused(t *testing.T) {
	prior, theta, x := conjugate(300)
	e := sbi.NewFMPE(prior, sbi.FMPEConfig{Hidden: 16, Layers: 2})
	_, err := e.Train(theta, x, sbi.TrainConfig{Epochs: 1, Regularizer: calib.CoveragePenalty(calib.CoveragePenaltyConfig{Lambda: 5, Samples: 4})})
	if err == nil || !strings.Contains(err.Error(), "LogPost") {
		t.Errorf("Train with the coverage regularizer: %v, expected an error saying the batch has no LogPost", err)
	}
}

// The same seed gives the same estimator; another seed another one.
func TestFMPEDeterministic(t *testing.T) {
	prior, theta, x := conjugate(400)
	cfg := sbi.FMPEConfig{Hidden: 16, Layers: 2, RelTol: 1e-4, AbsTol: 1e-5}
	lp := func(seed uint64) []float64 {
		e := sbi.NewFMPE(prior, cfg)
		if _, err := e.Train(theta, x, sbi.TrainConfig{Epochs: 3, Seed: seed}); err != nil {
			t.Fatal(err)
		}
		return e.LogProbPairs(theta.Slice(0, 20, 0, 2).(*mat.Dense), x.Slice(0, 20, 0, 2).(*mat.Dense))
	}
	a, b, c := lp(1), lp(1), lp(2)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("pair %d: %v and %v for the same seed", i, a[i], b[i])
		}
	}
	if a[0] == c[0] && a[1] == c[1] {
		t.Error("seeds 1 and 2 gave the same log-densities")
	}
}

// The file round trip keeps the kind, the configuration and the densities (sbi.Load, the
// typed loader and a file on disk).
func TestFMPESaveLoad(t *testing.T) {
	prior, theta, x := conjugate(400)
	e := sbi.NewFMPE(prior, sbi.FMPEConfig{Hidden: 16, Layers: 2, TimeExponent: 1, SigmaMin: 1e-4})
	if _, err := e.Train(theta, x, sbi.TrainConfig{Epochs: 2, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/fmpe.gosbi"
	if err := e.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	loaded, err := sbi.LoadFMPEFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Config() != e.Config() {
		t.Errorf("configuration %+v after loading, %+v before", loaded.Config(), e.Config())
	}
	th, xs := theta.Slice(0, 5, 0, 2).(*mat.Dense), x.Slice(0, 5, 0, 2).(*mat.Dense)
	a, b := e.LogProbPairs(th, xs), loaded.LogProbPairs(th, xs)
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("pair %d: %v after loading, %v before", i, b[i], a[i])
		}
	}
	var buf bytes.Buffer
	if err := e.Save(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := sbi.LoadNPE(bytes.NewReader(buf.Bytes()), nil); err == nil || !strings.Contains(err.Error(), "LoadFMPE") {
		t.Errorf("LoadNPE of an FMPE file: %v, expected an error naming LoadFMPE", err)
	}
	if any, err := sbi.Load(bytes.NewReader(buf.Bytes())); err != nil {
		t.Error(err)
	} else if _, ok := any.(*sbi.FMPE); !ok {
		t.Errorf("Load returned a %T, expected *sbi.FMPE", any)
	}
}

func ExampleNewFMPE() {
	prior, theta, x := conjugate(2000)
	fmpe := sbi.NewFMPE(prior, sbi.FMPEConfig{Hidden: 32, Layers: 3})
	res, err := fmpe.Train(theta, x, sbi.TrainConfig{Epochs: 30, BatchSize: 100, LearningRate: 2e-3, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Estimator, "trained on", res.TrainRows, "pairs")
	post := fmpe.Posterior([]float64{0.5, -0.5}) // the exact posterior is N((0.5, −0.5), 0.09·I)
	draws := post.Sample(rand.New(rand.NewPCG(1, 2)), 4000)
	fmt.Printf("posterior mean ≈ (%.1f, %.1f), sd ≈ (%.1f, %.1f)\n", colMean(draws, 0), colMean(draws, 1), colSD(draws, 0), colSD(draws, 1))
	// Output:
	// FMPE trained on 1800 pairs
	// posterior mean ≈ (0.5, -0.5), sd ≈ (0.3, 0.3)
}

func colMean(m *mat.Dense, j int) float64 {
	col := mat.Col(nil, j, m)
	var s float64
	for _, v := range col {
		s += v
	}
	return s / float64(len(col))
}

func colSD(m *mat.Dense, j int) float64 {
	col := mat.Col(nil, j, m)
	mu := colMean(m, j)
	var s float64
	for _, v := range col {
		s += (v - mu) * (v - mu)
	}
	return math.Sqrt(s / float64(len(col)-1))
}
