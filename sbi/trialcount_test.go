package sbi

import (
	"fmt"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestTrialWarningEmbeddingPaths: Summaries, ToBase and CheckObservation evaluate the set
// embedding on the observation as a posterior does, so at 40 trials, outside the training
// range 1–5, each warns once with its own name, and at 5 trials says nothing. Before, only the
// posterior paths warned. Training, whose reservoir summarizes validation rows of 20 trials
// (outside the range: they are not fitted), warns about none of them.
func TestTrialWarningEmbeddingPaths(t *testing.T) {
	prior, theta, x := trialRangePairs()
	vx := mat.DenseCopyOf(x.Slice(0, 40, 0, 41))
	for i := 0; i < 40; i++ {
		vx.Set(i, 0, 20)
	}
	val := TrainConfig{Epochs: 1, Seed: 3, ValTheta: mat.DenseCopyOf(theta.Slice(0, 40, 0, 1)), ValX: vx}
	npe := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1, Embedding: trialRangeEmbedding})
	nre := NewNRE(prior, NREConfig{Hidden: []int{8}, Embedding: trialRangeEmbedding, Sampler: SamplerConfig{Method: SamplerImportance}})
	fmpe := NewFMPE(prior, FMPEConfig{Hidden: 8, Layers: 1, Embedding: trialRangeEmbedding})
	buf := captureWarnings(t)
	for _, e := range []Estimator{npe, nre, fmpe} {
		if _, err := e.Train(theta, x, val); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Contains(buf.String(), "trials") {
		t.Errorf("training with validation rows of 20 trials warned about them:\n%s", buf)
	}
	th := mat.NewDense(1, 1, []float64{0.2})
	check := func(c interface {
		CheckObservation([]float64) (*ObservationCheck, error)
	}) func(x []float64) {
		return func(x []float64) {
			if _, err := c.CheckObservation(x); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range []struct {
		name string
		call func(x []float64)
	}{
		{"NPE/Summaries", func(x []float64) { npe.Summaries(mat.NewDense(1, len(x), x)) }},
		{"NPE/ToBase", func(x []float64) { npe.ToBase(th, mat.NewDense(1, len(x), x)) }},
		{"NPE/CheckObservation", check(npe)},
		{"NRE/Summaries", func(x []float64) { nre.Summaries(mat.NewDense(1, len(x), x)) }},
		{"NRE/CheckObservation", check(nre)},
		{"FMPE/Summaries", func(x []float64) { fmpe.Summaries(mat.NewDense(1, len(x), x)) }},
	} {
		for _, n := range []int{5, 40} {
			t.Run(fmt.Sprintf("%s/%d", c.name, n), func(t *testing.T) {
				buf := captureWarnings(t)
				lastUnseenTrials.forget()
				c.call(trialRangeObservation(n))
				method := c.name[strings.Index(c.name, "/")+1:]
				want := 0
				if n > 5 {
					want = 1
				}
				got := trialsWarnings(buf.String(), n)
				if got != want || want == 1 && !strings.Contains(buf.String(), fmt.Sprintf(" %s at an observation of %d trials", method, n)) {
					t.Errorf("%d warnings about the number of trials, want %d naming %s; warnings:\n%s", got, want, method, buf)
				}
			})
		}
	}
}
