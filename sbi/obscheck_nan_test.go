package sbi

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/sbi/nn"
)

// sqrtEmbedding is a user's embedding that is NaN beyond the data it was trained on: its
// summary is a linear map of √(x + 10) of the standardized x, NaN for x < −10.
type sqrtEmbedding struct{}

func (sqrtEmbedding) Build(rng *rand.Rand, in int) (EmbeddingNet, error) {
	return sqrtNet{nn.NewLinear(rng, "sqrt", in, 2)}, nil
}

type sqrtNet struct{ l *nn.Linear }

func (n sqrtNet) Forward(tp *nn.Tape, x *nn.Tensor) *nn.Tensor {
	return n.l.Forward(tp, tp.Sqrt(tp.AddScalar(x, 10)))
}
func (n sqrtNet) Params() []*nn.Param { return n.l.Params() }
func (sqrtNet) Out() int              { return 2 }

// TestObservationCheckNonFiniteSummary: an observation whose values are finite but whose
// summary is not (an embedding that is NaN away from the training data) has no statistic to
// test: CheckObservation returns an error wrapping ErrNonFinite, never a p-value computed
// from NaN comparisons (which gave the smallest p-value, "outside").
func TestObservationCheckNonFiniteSummary(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	prior, theta, x := gaussianPairs(rng, 600)
	npe := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1, Embedding: sqrtEmbedding{}})
	if _, err := npe.Train(theta, x, TrainConfig{Epochs: 1, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := npe.CheckObservation([]float64{0.1, -0.2}); err != nil {
		t.Fatalf("an observation among the training data: %v", err)
	}
	c, err := npe.CheckObservation([]float64{-100, 0})
	if err == nil || !errors.Is(err, ErrNonFinite) {
		p := math.NaN()
		if c != nil {
			p = c.PValue
		}
		t.Errorf("CheckObservation where the summary is NaN: p = %v, error %v; want an error wrapping ErrNonFinite", p, err)
	}
}
