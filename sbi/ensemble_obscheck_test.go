package sbi

import (
	"errors"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
)

// countingLayout is an MLPEmbedding with an InputLayout that counts the observations it is
// asked to read (InputUsed, which the observation check calls) and refuses one whose first
// value is above 1e6.
type countingLayout struct {
	MLPEmbedding
	calls *atomic.Int64
}

func (e countingLayout) InputGroups(in int) ([]int, error) {
	g := make([]int, in)
	for i := range g {
		g[i] = i
	}
	return g, nil
}

func (e countingLayout) InputUsed(row []float64) (int, error) {
	e.calls.Add(1)
	if row[0] > 1e6 {
		return 0, errors.New("the first value is above 1e6")
	}
	return len(row), nil
}

// TestNPEPosteriorChecksObservationOnce counts the observation checks of a posterior through
// the InputUsed calls of a counting InputLayout, at an observation the layout refuses (where
// the check is all a posterior does with x): an NPE's posterior checks it once, and an NPE
// ensemble's once per member, not again itself; the posterior refuses to sample with the
// layout's error. At a readable observation the ensemble reads x as often as its members'
// posteriors without their warnings, plus the reads of one member's warning, and warns once
// when x is far outside the training simulations.
func TestNPEPosteriorChecksObservationOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	prior, theta, x := gaussianPairs(rng, 200)
	var calls atomic.Int64
	cfg := NPEConfig{Hidden: 4, Transforms: 1, Embedding: countingLayout{MLPEmbedding{Hidden: []int{4}, Out: 2}, &calls}}
	members := []*NPE{NewNPE(prior, cfg), NewNPE(prior, cfg)}
	ens := MustNewNPEEnsemble(members...)
	if _, err := ens.Train(theta, x, TrainConfig{Epochs: 1, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	count := func(f func()) int64 {
		calls.Store(0)
		f()
		return calls.Load()
	}
	refused := []float64{2e6, 0}
	for _, c := range []struct {
		name string
		post func() Posterior
		want int64
	}{
		{"NPE", func() Posterior { return members[0].Posterior(refused) }, 1},
		{"NPE ensemble of 2", func() Posterior { return ens.Posterior(refused) }, 2},
	} {
		var p Posterior
		if got := count(func() { p = c.post() }); got != c.want {
			t.Errorf("%s: Posterior at a refused observation read it %d times, expected %d (one check per member)", c.name, got, c.want)
		}
		_, err := p.(contextSampler).SampleContext(t.Context(), rng, 3)
		if err == nil || !strings.Contains(err.Error(), "above 1e6") {
			t.Errorf("%s: sampling at a refused observation: error %v, expected the layout's", c.name, err)
		}
	}
	far := []float64{40, 40}
	captureWarnings(t)
	quiet := count(func() { members[0].posteriorAt(far, false) }) + count(func() { members[1].posteriorAt(far, false) })
	warned := count(func() { members[0].posteriorAt(far, true) }) - count(func() { members[0].posteriorAt(far, false) })
	buf := captureWarnings(t) // a fresh rate limit
	if got := count(func() { ens.Posterior(far) }); got != quiet+warned {
		t.Errorf("NPE ensemble: Posterior at a readable observation read it %d times, expected %d: its members' checks (%d) and one warning's (%d)", got, quiet+warned, quiet, warned)
	}
	if n := strings.Count(buf.String(), "sbi: warning:"); n != 1 {
		t.Errorf("NPE ensemble: Posterior far outside the training simulations printed %d warnings, expected 1:\n%s", n, buf)
	}
}

// TestFMPEPosteriorChecksObservationOnce counts, as TestNPEPosteriorChecksObservationOnce
// does, the reads of an observation the layout refuses: an FMPE's posterior checks it once
// and refuses to sample with the layout's error.
func TestFMPEPosteriorChecksObservationOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	prior, theta, x := gaussianPairs(rng, 200)
	var calls atomic.Int64
	e := NewFMPE(prior, FMPEConfig{Hidden: 4, Layers: 1, Embedding: countingLayout{MLPEmbedding{Hidden: []int{4}, Out: 2}, &calls}})
	if _, err := e.Train(theta, x, TrainConfig{Epochs: 1, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	calls.Store(0)
	p := e.Posterior([]float64{2e6, 0})
	if got := calls.Load(); got != 1 {
		t.Errorf("Posterior at a refused observation read it %d times, expected 1", got)
	}
	_, err := p.(contextSampler).SampleContext(t.Context(), rng, 3)
	if err == nil || !strings.Contains(err.Error(), "above 1e6") {
		t.Errorf("sampling at a refused observation: error %v, expected the layout's", err)
	}
}
