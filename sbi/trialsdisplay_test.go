package sbi

import (
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestTrialsPosteriorDisplay checks that the posterior of several i.i.d. trials says how many
// trials it conditions on and of what width, in its text and HTML: it showed "at x = []", as
// if it had no observation, because the trials were not kept for the display.
func TestTrialsPosteriorDisplay(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	prior, theta, x := gaussianPairs(rng, 300)
	xd := mat.NewDense(300, 3, nil) // x and a coin for MNLE's discrete column
	for i := 0; i < 300; i++ {
		xd.Set(i, 0, x.At(i, 0))
		xd.Set(i, 1, x.At(i, 1))
		xd.Set(i, 2, float64(rng.IntN(2)))
	}
	cfg := TrainConfig{Epochs: 2, Seed: 1}
	nle := NewNLE(prior, NLEConfig{Hidden: 8, Transforms: 1})
	nle.MustTrain(theta, x, cfg)
	nre := NewNRE(prior, NREConfig{Hidden: []int{8}})
	nre.MustTrain(theta, x, cfg)
	mnle := NewMNLE(prior, MNLEConfig{Hidden: 8})
	mnle.MustTrain(theta, xd, cfg)
	trials := mat.NewDense(3, 2, []float64{0.1, -0.2, 0.3, 0.4, -0.5, 0.6})
	trialsD := mat.NewDense(3, 3, []float64{0.1, -0.2, 0, 0.3, 0.4, 1, -0.5, 0.6, 1})
	for _, c := range []struct {
		name string
		post *RatioPosterior
		want string
	}{
		{"NLE", nle.PosteriorTrials(trials), "NLE (maf) trials posterior at 3 trials of 2 values (the first x = [0.1, -0.2]), 2 parameters, unnormalized"},
		{"NRE", nre.PosteriorTrials(trials), "NRE trials posterior at 3 trials of 2 values (the first x = [0.1, -0.2]), 2 parameters, unnormalized"},
		{"MNLE", mnle.PosteriorTrials(trialsD), "trials posterior at 3 trials of 3 values (the first x = [0.1, -0.2, 0]), 2 parameters, unnormalized"},
		{"untrained NLE", NewNLE(prior, NLEConfig{}).PosteriorTrials(trials), "NLE (maf) trials posterior at 3 trials of 2 values (the first x = [0.1, -0.2]), 2 parameters, unnormalized: "},
		{"one trial", nle.PosteriorAt([]float64{0.1, -0.2}), "NLE (maf) posterior at x = [0.1, -0.2], 2 parameters, unnormalized"},
	} {
		if s := c.post.String(); !strings.Contains(s, c.want) {
			t.Errorf("%s: String() = %q, want it to contain %q", c.name, s, c.want)
		}
		html, _ := c.post.MIMEBundle()["text/html"].(string)
		if strings.Contains(html, "x = []") || (c.name != "one trial" && !strings.Contains(html, "3 trials")) {
			t.Errorf("%s: HTML %q does not name the trials", c.name, html)
		}
	}
}
