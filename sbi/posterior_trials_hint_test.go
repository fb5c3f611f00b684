package sbi_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/sbitest"
	"github.com/gosbi/gosbi/sbi/task"
)

// TestPosteriorOfSeveralTrialsSaysPosteriorTrials checks the panic of Posterior for an
// estimator trained on single trials given an observation of several trials side by side, as
// a user of Python's sbi gives x_o of 20 trials to posterior.sample: the message must name the
// number of trials and the calls that take them (PosteriorTrials, Trials), and a length that is
// no whole number of trials must not get that advice.
func TestPosteriorOfSeveralTrialsSaysPosteriorTrials(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	gl := sbitest.NewGaussianLinear(1)
	theta := gl.Prior().Sample(rng, 200)
	x := gl.Simulate(rng, theta)
	mixed := task.Mixed()
	mtheta := mixed.Prior().Sample(rng, 200)
	mx := mixed.Simulate(rng, mtheta)
	cfg := sbi.TrainConfig{Epochs: 1, Seed: 1}
	nle := sbi.NewNLE(gl.Prior(), sbi.NLEConfig{Hidden: 8, Transforms: 1})
	nre := sbi.NewNRE(gl.Prior(), sbi.NREConfig{Hidden: []int{8}})
	mnle := sbi.NewMNLE(mixed.Prior(), sbi.MNLEConfig{Hidden: 8, Transforms: 1, LogTransform: true})
	nle.MustTrain(theta, x, cfg)
	nre.MustTrain(theta, x, cfg)
	mnle.MustTrain(mtheta, mx, cfg)
	for _, c := range []struct {
		name string
		est  sbi.Estimator
		d    int
	}{{"NLE", nle, x.RawMatrix().Cols}, {"NRE", nre, x.RawMatrix().Cols}, {"MNLE", mnle, mx.RawMatrix().Cols}} {
		for _, tc := range []struct {
			w    int
			want []string
			not  string
		}{
			{w: 5 * c.d, want: []string{"5 trials", "PosteriorTrials", fmt.Sprintf("mat.NewDense(5, %d, x)", c.d), "Trials(5)"}},
			{w: 5*c.d + 1, want: []string{fmt.Sprintf("expected %d", c.d)}, not: "PosteriorTrials"},
		} {
			msg := panicOf(func() { c.est.Posterior(make([]float64, tc.w)) })
			if msg == "" {
				t.Fatalf("%s: Posterior of %d values did not panic", c.name, tc.w)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%s: Posterior of %d values: %q does not say %q", c.name, tc.w, msg, w)
				}
			}
			if tc.not != "" && strings.Contains(msg, tc.not) {
				t.Errorf("%s: Posterior of %d values: %q says %q", c.name, tc.w, msg, tc.not)
			}
		}
	}
}

// panicOf runs f and returns what it panicked with, "" when it returned.
func panicOf(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}
