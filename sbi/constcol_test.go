package sbi

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/dist"
	"gonum.org/v1/gonum/mat"
)

// TestConstantColumns trains every estimator on pairs whose θ has a column that never varies
// (a parameter the simulations held fixed: NPE learns a point mass at its value, the others
// nothing of it) and whose x has a constant summary (centred only, it carries no information).
// The θ column must be named in a warning of the result, in memory and from a store; the x
// column must not be, and the log-densities must stay finite.
func TestConstantColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 200
	prior := dist.NewStandardNormal(2)
	theta, x := mat.NewDense(n, 2, nil), mat.NewDense(n, 2, nil)
	for i := range n {
		th := rng.NormFloat64()
		theta.SetRow(i, []float64{th, 3})
		x.SetRow(i, []float64{th + 0.5*rng.NormFloat64(), 7})
	}
	cfg := TrainConfig{Epochs: 2, BatchSize: 50, Seed: 1}
	for _, c := range []struct {
		name  string
		train func() (*TrainResult, Estimator, error)
	}{
		{"NPE", func() (*TrainResult, Estimator, error) {
			e := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1})
			r, err := e.Train(theta, x, cfg)
			return r, e, err
		}},
		{"NRE", func() (*TrainResult, Estimator, error) {
			e := NewNRE(prior, NREConfig{Hidden: []int{8}})
			r, err := e.Train(theta, x, cfg)
			return r, e, err
		}},
		{"NLE", func() (*TrainResult, Estimator, error) {
			e := NewNLE(prior, NLEConfig{Hidden: 8, Transforms: 1})
			r, err := e.Train(theta, x, cfg)
			return r, e, err
		}},
		{"FMPE", func() (*TrainResult, Estimator, error) {
			e := NewFMPE(prior, FMPEConfig{Hidden: 8, Layers: 1})
			r, err := e.Train(theta, x, cfg)
			return r, e, err
		}},
		{"NPE from a store", func() (*TrainResult, Estimator, error) {
			e := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1})
			r, err := e.TrainStream(storeOf(t, theta, x, 50), nil, cfg)
			return r, e, err
		}},
	} {
		res, e, err := c.train()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		w := strings.Join(res.Warnings, "\n")
		if !strings.Contains(w, "θ column 1") || !strings.Contains(w, "same value (3)") {
			t.Errorf("%s: warnings %q, expected one naming θ column 1, the same value (3) in every training pair", c.name, res.Warnings)
		}
		if strings.Contains(w, "θ column 0") || strings.Contains(w, "x column") {
			t.Errorf("%s: warnings %q name a column that varies, or x", c.name, res.Warnings)
		}
		for i, v := range e.LogProbPairs(theta.Slice(0, 5, 0, 2).(*mat.Dense), x.Slice(0, 5, 0, 2).(*mat.Dense)) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%s: log density %v at pair %d", c.name, v, i)
			}
		}
	}
}
