package sbi

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestNonFiniteObservationErr checks that every posterior at an observation holding NaN or
// ±Inf refuses to sample with an error wrapping ErrNonFinite, the sentinel the package
// documents for it (doc.go, ErrNonFinite), whether the posterior is of one observation or of
// i.i.d. trials, and that CheckObservation's error wraps it too.
func TestNonFiniteObservationErr(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	prior, theta, x := gaussianPairs(rng, 300)
	mixed := mat.NewDense(300, 3, nil) // x then a coin, for MNLE
	for i := 0; i < 300; i++ {
		copy(mixed.RawRowView(i), x.RawRowView(i))
		mixed.Set(i, 2, float64(i%2))
	}
	cfg := TrainConfig{Epochs: 1, Seed: 1}
	few := SamplerConfig{Method: SamplerImportance, Proposals: 5}
	npe, nre := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1}), NewNRE(prior, NREConfig{Hidden: []int{8}, Sampler: few})
	nle := NewNLE(prior, NLEConfig{Hidden: 8, Transforms: 1, Sampler: few})
	mnle := NewMNLE(prior, MNLEConfig{Hidden: 8, Transforms: 1, Sampler: few})
	fmpe := NewFMPE(prior, FMPEConfig{Hidden: 6, Layers: 2, RelTol: 1e-3, AbsTol: 1e-4})
	for _, e := range []Estimator{npe, nre, nle, fmpe} {
		if _, err := e.Train(theta, x, cfg); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := mnle.Train(theta, mixed, cfg); err != nil {
		t.Fatal(err)
	}
	nan, inf := []float64{0.5, math.NaN()}, []float64{math.Inf(-1), 0.5}
	trials := func(rows ...[]float64) *mat.Dense {
		m := mat.NewDense(len(rows), len(rows[0]), nil)
		for i, r := range rows {
			m.SetRow(i, r)
		}
		return m
	}
	for _, c := range []struct {
		name string
		post Posterior
	}{
		{"NPE", npe.Posterior(nan)},
		{"FMPE", fmpe.Posterior(inf)},
		{"NRE", nre.Posterior(nan)},
		{"NRE trials", nre.PosteriorTrials(trials([]float64{0, 0}, inf))},
		{"NLE", nle.Posterior(nan)},
		{"NLE trials", nle.PosteriorTrials(trials([]float64{0, 0}, nan))},
		{"MNLE", mnle.Posterior([]float64{0.5, math.NaN(), 1})},
		{"MNLE trials", mnle.PosteriorTrials(trials([]float64{0, 0, 1}, []float64{math.Inf(1), 0, 0}))},
	} {
		if _, err := sampleContext(context.Background(), c.post, rng, 5); !errors.Is(err, ErrNonFinite) {
			t.Errorf("%s posterior at a non-finite observation: error %v, want one wrapping ErrNonFinite", c.name, err)
		}
	}
	if _, err := npe.CheckObservation(nan); !errors.Is(err, ErrNonFinite) {
		t.Errorf("CheckObservation at a non-finite observation: error %v, want one wrapping ErrNonFinite", err)
	}
}
