package sbi_test

import (
	"context"
	"errors"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/sbitest"
)

// failTrainAt is exactGL whose training of round `at` fails before giving a result (as a
// training refused for its configuration or its data does).
type failTrainAt struct {
	exactGL
	at, calls int
}

var errTrainRefused = errors.New("training refused")

func (f *failTrainAt) TrainContext(ctx context.Context, theta, x *mat.Dense, cfg sbi.TrainConfig) (*sbi.TrainResult, error) {
	f.calls++
	if f.calls == f.at {
		return nil, errTrainRefused
	}
	return f.exactGL.TrainContext(ctx, theta, x, cfg)
}

// TestSequentialFailedTrainingKeepsRecord: a round whose training fails without a result,
// after its simulations were made, keeps those simulations in Theta and X (they cost
// simulator time) and its record in Rounds, with a nil Train: the records account for every
// pair the result holds, and RoundPairs gives the failed round's pairs.
func TestSequentialFailedTrainingKeepsRecord(t *testing.T) {
	const n = 200
	for _, at := range []int{1, 2} {
		g := sbitest.NewGaussianLinear(1)
		xo := glObservation(g, 1)
		est := &failTrainAt{exactGL: exactGL{g: g}, at: at}
		res, err := sbi.Sequential(est, glSimulator{g: g}, xo, sbi.SequentialConfig{
			Method: sbi.TruncatedProposals, Rounds: 3, Simulations: n, ThresholdSamples: 1000, Seed: 2,
		})
		if !errors.Is(err, errTrainRefused) {
			t.Fatalf("training of round %d refused: error %v, want it wrapped", at, err)
		}
		if res == nil || res.Theta == nil {
			t.Fatalf("training of round %d refused: result %v, want the pairs simulated", at, res)
		}
		if rows, _ := res.Theta.Dims(); rows != at*n {
			t.Errorf("training of round %d refused: the result holds %d pairs, want %d", at, rows, at*n)
		}
		if len(res.Rounds) != at {
			t.Fatalf("training of round %d refused: %d round records, want %d (one for each round whose pairs the result holds)", at, len(res.Rounds), at)
		}
		last := res.Rounds[at-1]
		if last.Round != at || last.Train != nil || last.Pairs != at*n || last.Simulations != n {
			t.Errorf("training of round %d refused: its record %+v, want round %d with %d pairs and no training result", at, last, at, at*n)
		}
		if th, _ := res.RoundPairs(at); !mat.Equal(th, res.Theta.Slice((at-1)*n, at*n, 0, 2)) {
			t.Errorf("training of round %d refused: RoundPairs does not give the round's rows", at)
		}
		if at == 1 && res.Posterior != nil {
			t.Errorf("training of round 1 refused: posterior %v of an untrained estimator, want nil", res.Posterior)
		}
	}
}
