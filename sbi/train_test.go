package sbi

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestTrainConfigRejectsBadNumbers checks that a configuration with a NaN, an infinity or an
// out-of-range value is refused with an error naming the field, by both estimators, before any
// training (a NaN ClipNorm used to switch clipping off silently).
func TestTrainConfigRejectsBadNumbers(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	prior, theta, x := gaussianPairs(rng, 60)
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		cfg   TrainConfig
		field string
	}{
		{TrainConfig{ClipNorm: nan}, "ClipNorm = NaN"},
		{TrainConfig{ClipNorm: inf}, "ClipNorm = +Inf"},
		{TrainConfig{ClipNorm: -inf}, "ClipNorm = -Inf"},
		{TrainConfig{LearningRate: nan}, "LearningRate = NaN"},
		{TrainConfig{LearningRate: -1e-3}, "LearningRate = -0.001"},
		{TrainConfig{LearningRate: inf}, "LearningRate = +Inf"},
		{TrainConfig{WeightDecay: nan}, "WeightDecay = NaN"},
		{TrainConfig{WeightDecay: inf}, "WeightDecay = +Inf"},
		{TrainConfig{WeightDecay: -0.1}, "WeightDecay = -0.1"},
		{TrainConfig{ValidationFraction: nan}, "ValidationFraction = NaN"},
		{TrainConfig{ValidationFraction: -inf}, "ValidationFraction = -Inf"},
		{TrainConfig{ValidationFraction: 1}, "ValidationFraction = 1"},
		{TrainConfig{Epochs: -1}, "Epochs = -1"},
		{TrainConfig{BatchSize: -5}, "BatchSize = -5"},
		{TrainConfig{Patience: -2}, "Patience = -2"},
	}
	for _, c := range cases {
		if c.cfg.Epochs == 0 {
			c.cfg.Epochs = 1 // keeps a wrongly accepted configuration quick
		}
		npe := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1})
		_, errNPE := npe.Train(theta, x, c.cfg)
		nre := NewNRE(prior, NREConfig{Hidden: []int{8}})
		_, errNRE := nre.Train(theta, x, c.cfg)
		for name, err := range map[string]error{"NPE": errNPE, "NRE": errNRE} {
			if err == nil || !strings.Contains(err.Error(), c.field) {
				t.Errorf("%s.Train with %s: error %v, want one naming %q", name, c.field, err, c.field)
			}
		}
		if npe.Trained() || nre.Trained() {
			t.Errorf("%s: an estimator was trained despite the error", c.field)
		}
	}
}
