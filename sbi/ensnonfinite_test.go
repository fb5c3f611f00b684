package sbi

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestEnsembleNonFiniteX checks that an ensemble's LogProbPairs gives −Inf where its members
// do: at an x holding NaN or ±Inf. A tanh classifier saturates on an infinite input, so its
// logit there is finite and only the member's own check makes the log-density −Inf.
func TestEnsembleNonFiniteX(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	prior, theta, x := gaussianPairs(rng, 200)
	var nres []*NRE
	var npes []*NPE
	for k := range uint64(2) {
		r := NewNRE(prior, NREConfig{Hidden: []int{8}, Activation: Tanh})
		n := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1})
		for _, e := range []Estimator{r, n} {
			if _, err := e.Train(theta, x, TrainConfig{Epochs: 2, Seed: k}); err != nil {
				t.Fatal(err)
			}
		}
		nres, npes = append(nres, r), append(npes, n)
	}
	th := mat.NewDense(4, 2, []float64{0.1, 0.2, 0.3, -0.4, -0.5, 0.6, 0.7, 0.8})
	xs := mat.NewDense(4, 2, []float64{math.Inf(1), 0, 0, math.Inf(-1), math.NaN(), 0.5, 0.2, 0.1})
	for name, e := range map[string]Amortized{"NRE ensemble": MustNewNREEnsemble(nres...), "NPE ensemble": MustNewNPEEnsemble(npes...)} {
		got := e.LogProbPairs(th, xs)
		for i := range 3 {
			if !math.IsInf(got[i], -1) {
				t.Errorf("%s: log density %v at x = %v, expected −Inf as its members give", name, got[i], xs.RawRowView(i))
			}
		}
		if math.IsInf(got[3], 0) || math.IsNaN(got[3]) {
			t.Errorf("%s: log density %v at a finite x", name, got[3])
		}
	}
}
