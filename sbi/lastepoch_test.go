package sbi

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// nanLastEpoch is a model of one weight p with the loss (p − 1)² per batch, whose loss is
// NaN from batch nanFrom on (as a batch that overflows: its step is skipped, the weights stay
// those of the epoch before).
type nanLastEpoch struct {
	p              *nn.Param
	calls, nanFrom int
}

func (m *nanLastEpoch) params() []*nn.Param { return []*nn.Param{m.p} }

func (m *nanLastEpoch) batchLoss(tp *nn.Tape, _ *trainData, _ []int, _ *RegBatch) *nn.Tensor {
	m.calls++
	l := tp.Square(tp.AddScalar(m.p.Tensor, -1))
	if m.calls >= m.nanFrom {
		l = tp.AddScalar(l, math.NaN())
	}
	return l
}

// TestNoValidationKeepsLastFiniteEpoch checks training without validation pairs whose last
// epoch has a non-finite training loss while the epochs before had finite ones: the weights of
// the last epoch with a finite loss are kept and reported (BestEpoch), not declared diverged
// ("no epoch reached a finite loss" is not what happened, and a fresh estimator would be left
// untrained), in memory (fit) and from a source (fitStream).
func TestNoValidationKeepsLastFiniteEpoch(t *testing.T) {
	cfg := TrainConfig{Epochs: 3, BatchSize: 200, LearningRate: 0.1, ValidationFraction: -1}.withDefaults()
	theta, x := mat.NewDense(10, 1, nil), mat.NewDense(10, 1, nil)
	rows := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	for _, c := range []struct {
		name string
		run  func(m *nanLastEpoch, res *TrainResult) error
	}{
		{"in memory", func(m *nanLastEpoch, res *TrainResult) error {
			d := &trainData{theta: theta, x: x, thetaZ: theta, xZ: x}
			return fit(context.Background(), res, m, d, rows, nil, cfg, rand.New(rand.NewPCG(1, 1)), false)
		}},
		{"from a source", func(m *nanLastEpoch, res *TrainResult) error {
			e := &estimator{label: "test", zt: zscore{Mean: []float64{0}, Std: []float64{1}}, zx: zscore{Mean: []float64{0}, Std: []float64{1}}}
			return e.fitStream(context.Background(), res, m, storeOf(t, theta, x, 10), nil, cfg, rand.New(rand.NewPCG(1, 1)))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := &nanLastEpoch{p: nn.NewParam("p", 1, 1), nanFrom: 3}
			res := &TrainResult{Estimator: "test"}
			err := c.run(m, res)
			if err != nil || res.BestEpoch != 2 || math.IsNaN(res.BestLoss) || math.IsInf(res.BestLoss, 0) {
				t.Errorf("error %v, best epoch %d (loss %v); want no error and epoch 2 kept, the last with a finite loss", err, res.BestEpoch, res.BestLoss)
			}
			if p := m.p.Data[0]; !(p > 0 && p < 1) {
				t.Errorf("weight %v after training, want that of epoch 2 (between 0 and 1)", p)
			}
		})
	}
}
