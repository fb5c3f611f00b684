package sbi

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestNREValidationNeedsTwoPairs checks the validation of a ratio estimator at its smallest.
// A classifier scores a pair against the θ of another pair of its batch, so one validation
// pair has none: NRE-A's marginal pair is the joint one, NRE-B's only atom is the right one
// (a loss of 0 at every epoch: the first is kept), and NRE-C divides by its 0 marginal atoms
// (NaN at every epoch, reported as a divergence). Training must refuse one validation pair,
// in memory (a ValidationFraction that leaves one, or ValTheta of one row) and from a store,
// with an error that says why; and a validation source whose last batch holds one pair must
// score its other batches, not fail or bias them.
func TestNREValidationNeedsTwoPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	prior, theta, x := gaussianPairs(rng, 140)
	rows := func(m *mat.Dense, lo, hi int) *mat.Dense { return m.Slice(lo, hi, 0, 2).(*mat.Dense) }
	for _, loss := range []NRELoss{NREA, NREB, NREC} {
		cfg := NREConfig{Hidden: []int{8}, Loss: loss, Classes: map[NRELoss]int{NREB: 4, NREC: 3}[loss]}
		for _, c := range []struct {
			name  string
			train func(e *NRE) (*TrainResult, error)
		}{
			{"ValidationFraction leaves one", func(e *NRE) (*TrainResult, error) {
				return e.Train(rows(theta, 0, 10), rows(x, 0, 10), TrainConfig{Epochs: 3, BatchSize: 4, Seed: 1})
			}},
			{"ValTheta of one row", func(e *NRE) (*TrainResult, error) {
				return e.Train(rows(theta, 0, 20), rows(x, 0, 20), TrainConfig{Epochs: 3, BatchSize: 4, Seed: 1,
					ValTheta: rows(theta, 20, 21), ValX: rows(x, 20, 21)})
			}},
			{"a store of one validation pair", func(e *NRE) (*TrainResult, error) {
				return e.TrainStream(storeOf(t, rows(theta, 0, 20), rows(x, 0, 20), 10), storeOf(t, rows(theta, 20, 21), rows(x, 20, 21), 1),
					TrainConfig{Epochs: 3, BatchSize: 4, Seed: 1})
			}},
		} {
			_, err := c.train(NewNRE(prior, cfg))
			if err == nil || !strings.Contains(err.Error(), "1 validation pair") || !strings.Contains(err.Error(), "at least 2") {
				t.Errorf("%s, %s: error %v, expected one saying that 1 validation pair is too few (at least 2)", loss, c.name, err)
			}
		}
		// 41 validation pairs in batches of 20: the last batch holds one pair.
		e := NewNRE(prior, cfg)
		res, err := e.TrainStream(storeOf(t, rows(theta, 0, 99), rows(x, 0, 99), 33), storeOf(t, rows(theta, 99, 140), rows(x, 99, 140), 41),
			TrainConfig{Epochs: 3, BatchSize: 20, Seed: 1})
		if err != nil {
			t.Errorf("%s, validation source of 41 pairs in batches of 20: %v", loss, err)
			continue
		}
		if res.ValRows != 40 {
			t.Errorf("%s: %d validation pairs scored, expected 40 (the batch of one has no other pair)", loss, res.ValRows)
		}
		for k, v := range res.ValLoss {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%s: validation loss %v at epoch %d", loss, v, k+1)
			}
		}
	}
}
