package sbi_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/sbitest"
	"gonum.org/v1/gonum/mat"
)

// TestNREEnsembleTrials checks NREEnsemble.Trials against the rule the ensemble uses for one
// trial, the mean of its members' ratios, applied per trial: LogProbPairs of a row of k trials
// (full, or padded with NaN) is log p(θ) plus the sum over the trials present, in their order,
// of the ensemble's LogRatio, to the bit; Trials(1) is the ensemble's own LogProbPairs; the
// posterior's LogProb agrees to 1e−9; and the value is not the mixture of the members'
// posteriors of all the trials (another rule, which the doc explains is not the ensemble's).
// An untrained ensemble refuses, naming its first member.
func TestNREEnsembleTrials(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	gl := sbitest.NewGaussianLinear(1)
	theta := gl.Prior().Sample(rng, 400)
	x := gl.Simulate(rng, theta)
	members := []*sbi.NRE{sbi.NewNRE(gl.Prior(), sbi.NREConfig{Hidden: []int{8}}), sbi.NewNRE(gl.Prior(), sbi.NREConfig{Hidden: []int{8}})}
	ens := sbi.MustNewNREEnsemble(members...)
	if _, err := ens.Train(theta, x, sbi.TrainConfig{Epochs: 2, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	D := gl.Prior().Dim()
	const m = 6
	for _, c := range []struct {
		n, present int
	}{{1, 1}, {3, 3}, {4, 2}} {
		a := ens.Trials(c.n)
		th := gl.Prior().Sample(rng, m)
		xs := trialRows(rng, gl.Simulate, gl.Prior().Sample(rng, m), c.n)
		_, w := xs.Dims()
		d := w / c.n
		for i := 0; i < m; i++ {
			for j := c.present * d; j < w; j++ {
				xs.Set(i, j, math.NaN())
			}
		}
		got := a.LogProbPairs(th, xs)
		mixtureDiffers := false
		for i := 0; i < m; i++ {
			rep := mat.NewDense(c.present, D, nil)
			for k := 0; k < c.present; k++ {
				rep.SetRow(k, th.RawRowView(i))
			}
			one := mat.NewDense(c.present, d, append([]float64(nil), xs.RawRowView(i)[:c.present*d]...))
			row := mat.NewDense(1, D, th.RawRowView(i))
			want, s := gl.Prior().LogProb(row)[0], 0.0
			for _, v := range ens.LogRatio(rep, one) {
				s += v
			}
			want += s
			if got[i] != want {
				t.Errorf("%d of %d trials, pair %d: LogProbPairs %v, prior + sum of the ensemble's LogRatio over the trials %v", c.present, c.n, i, got[i], want)
			}
			if lp := a.Posterior(xs.RawRowView(i)).LogProb(row)[0]; math.Abs(lp-got[i]) > 1e-9*math.Max(1, math.Abs(got[i])) {
				t.Errorf("%d of %d trials, pair %d: LogProbPairs %v, Posterior(x).LogProb %v", c.present, c.n, i, got[i], lp)
			}
			mix := 0.0
			for _, mb := range members {
				s := 0.0
				for _, v := range mb.LogRatio(rep, one) {
					s += v
				}
				mix += math.Exp(s) / float64(len(members))
			}
			mixtureDiffers = mixtureDiffers || math.Abs(gl.Prior().LogProb(row)[0]+math.Log(mix)-got[i]) > 1e-6
		}
		if c.n == 1 {
			if own := ens.LogProbPairs(th, xs); !equalFloats(own, got) {
				t.Errorf("Trials(1).LogProbPairs %v, the ensemble's LogProbPairs %v", got, own)
			}
		} else if !mixtureDiffers {
			t.Errorf("%d trials: the trials' log-density equals the mixture of the members' posteriors at every pair: the test cannot tell the rules apart", c.present)
		}
	}
	if s := ens.Trials(3).String(); !strings.Contains(s, "NRE ensemble of 2") {
		t.Errorf("String %q, expected the ensemble's label", s)
	}
	untrained := sbi.MustNewNREEnsemble(sbi.NewNRE(gl.Prior(), sbi.NREConfig{Hidden: []int{8}}), sbi.NewNRE(gl.Prior(), sbi.NREConfig{Hidden: []int{8}}))
	_, err := untrained.Trials(3).PosteriorAt(make([]float64, 9)).SampleChecked(rng, 3)
	if !errors.Is(err, sbi.ErrUntrained) || !strings.Contains(err.Error(), "member 0") {
		t.Errorf("untrained ensemble: sampling error %v, expected ErrUntrained naming member 0", err)
	}
	if !panicsWith(func() { untrained.Trials(3).LogProbPairs(mat.NewDense(1, D, nil), mat.NewDense(1, 9, nil)) }, "member 0 is not trained") {
		t.Errorf("untrained ensemble: LogProbPairs does not panic naming member 0")
	}
}

// equalFloats reports whether a and b hold the same values, bit for bit up to NaN.
func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}
