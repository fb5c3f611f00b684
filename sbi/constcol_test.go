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
// nothing of it) and whose x has a constant summary (centred only, it carries no information
// to a posterior or ratio estimator, and is a point mass to a likelihood estimator). The θ
// column must be named in a warning of the result, in memory and from a store; the x column
// only by the likelihood estimators (NLE, and MNLE's continuous columns); the log-densities
// must stay finite.
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
	xd := mat.NewDense(n, 3, nil) // MNLE's: x then a coin
	for i := range n {
		xd.SetRow(i, []float64{x.At(i, 0), 7, float64(i % 2)})
	}
	for _, c := range []struct {
		name  string
		train func() (*TrainResult, Estimator, error)
		wantX bool
	}{
		{"NPE", func() (*TrainResult, Estimator, error) {
			e := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1})
			r, err := e.Train(theta, x, cfg)
			return r, e, err
		}, false},
		{"NRE", func() (*TrainResult, Estimator, error) {
			e := NewNRE(prior, NREConfig{Hidden: []int{8}})
			r, err := e.Train(theta, x, cfg)
			return r, e, err
		}, false},
		{"NLE", func() (*TrainResult, Estimator, error) {
			e := NewNLE(prior, NLEConfig{Hidden: 8, Transforms: 1})
			r, err := e.Train(theta, x, cfg)
			return r, e, err
		}, true},
		{"MNLE", func() (*TrainResult, Estimator, error) {
			e := NewMNLE(prior, MNLEConfig{Hidden: 8})
			r, err := e.Train(theta, xd, cfg)
			return r, mnleOnX{e, xd}, err
		}, true},
		{"FMPE", func() (*TrainResult, Estimator, error) {
			e := NewFMPE(prior, FMPEConfig{Hidden: 8, Layers: 1})
			r, err := e.Train(theta, x, cfg)
			return r, e, err
		}, false},
		{"NPE from a store", func() (*TrainResult, Estimator, error) {
			e := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1})
			r, err := e.TrainStream(storeOf(t, theta, x, 50), nil, cfg)
			return r, e, err
		}, false},
	} {
		res, e, err := c.train()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		w := strings.Join(res.Warnings, "\n")
		if !strings.Contains(w, "θ column 1") || !strings.Contains(w, "same value (3)") {
			t.Errorf("%s: warnings %q, expected one naming θ column 1, the same value (3) in every training pair", c.name, res.Warnings)
		}
		if strings.Contains(w, "θ column 0") || strings.Contains(w, "x column 0") || strings.Contains(w, "x column 2") {
			t.Errorf("%s: warnings %q name a column that varies", c.name, res.Warnings)
		}
		if got := strings.Contains(w, "x column 1 holds the same value (7)"); got != c.wantX {
			t.Errorf("%s: warnings %q; a warning about x column 1: %v, expected %v", c.name, res.Warnings, got, c.wantX)
		}
		for i, v := range e.LogProbPairs(theta.Slice(0, 5, 0, 2).(*mat.Dense), x.Slice(0, 5, 0, 2).(*mat.Dense)) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%s: log density %v at pair %d", c.name, v, i)
			}
		}
	}
}

// mnleOnX evaluates an MNLE's LogProbPairs at the rows of its own x (with the discrete column)
// whatever x is given.
type mnleOnX struct {
	*MNLE
	x *mat.Dense
}

func (m mnleOnX) LogProbPairs(theta, x *mat.Dense) []float64 {
	n, _ := x.Dims()
	return m.MNLE.LogProbPairs(theta, m.x.Slice(0, n, 0, 3).(*mat.Dense))
}
