package sbi_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/calib"
	"github.com/gosbi/gosbi/sbi/sbitest"
	"github.com/gosbi/gosbi/sbi/task"
	"gonum.org/v1/gonum/mat"
)

// TestLikelihoodRegularizers checks which of calib's regularizers train a likelihood
// estimator: those that need only the posterior density (coverage, and KCCSD where the
// density is smooth on all of R^d) run and report their term every epoch; balancing needs a
// classifier's logits and refuses with an error that says so.
func TestLikelihoodRegularizers(t *testing.T) {
	gl := sbitest.NewGaussianLinear(1)
	rng := rand.New(rand.NewPCG(2, 2))
	theta := gl.Prior().Sample(rng, 300)
	x := gl.Simulate(rng, theta)
	mixed := task.Mixed()
	mTheta := mixed.Prior().Sample(rng, 300)
	mX := mixed.Simulate(rng, mTheta)
	type trainer interface {
		Train(*mat.Dense, *mat.Dense, sbi.TrainConfig) (*sbi.TrainResult, error)
	}
	for _, c := range []struct {
		name     string
		est      func() trainer
		theta, x *mat.Dense
		reg      sbi.Regularizer
		refuse   string
	}{
		{"NLE coverage", func() trainer { return sbi.NewNLE(gl.Prior(), sbi.NLEConfig{Hidden: 16, Transforms: 1}) }, theta, x,
			calib.CoveragePenalty(calib.CoveragePenaltyConfig{Lambda: 1, Samples: 4}), ""},
		{"NLE KCCSD", func() trainer { return sbi.NewNLE(gl.Prior(), sbi.NLEConfig{Hidden: 16, Transforms: 1}) }, theta, x,
			calib.KCCSDPenalty(calib.KCCSDPenaltyConfig{Lambda: 1}), ""},
		{"NLE balance", func() trainer { return sbi.NewNLE(gl.Prior(), sbi.NLEConfig{Hidden: 16, Transforms: 1}) }, theta, x,
			calib.BalancePenalty(100), "no classifier logits"},
		{"MNLE coverage", func() trainer { return sbi.NewMNLE(mixed.Prior(), sbi.MNLEConfig{Hidden: 16, LogTransform: true}) }, mTheta, mX,
			calib.CoveragePenalty(calib.CoveragePenaltyConfig{Lambda: 1, Samples: 4}), ""},
		{"MNLE balance", func() trainer { return sbi.NewMNLE(mixed.Prior(), sbi.MNLEConfig{Hidden: 16, LogTransform: true}) }, mTheta, mX,
			calib.BalancePenalty(100), "no classifier logits"},
	} {
		res, err := c.est().Train(c.theta, c.x, sbi.TrainConfig{Epochs: 2, BatchSize: 50, Seed: 1, Regularizer: c.reg})
		switch {
		case c.refuse != "" && (err == nil || !strings.Contains(err.Error(), c.refuse)):
			t.Errorf("%s: error %v, expected one saying %q", c.name, err, c.refuse)
		case c.refuse == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.refuse == "" && (len(res.RegTerm) != res.Epochs || res.RegName != c.reg.Name()):
			t.Errorf("%s: %d terms of %q for %d epochs", c.name, len(res.RegTerm), res.RegName, res.Epochs)
		}
	}
}
