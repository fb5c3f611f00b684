package sbi

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
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

// scheduledPenalty is a test regularizer: 0 on training batches and, on the validation batch of
// epoch k (a gradient-free tape; one batch per epoch), the fixed value perEpoch[k−1]. It makes
// the regularized validation score of every epoch known in advance.
type scheduledPenalty struct {
	perEpoch []float64
	calls    *int
}

func (scheduledPenalty) Name() string { return "scheduled" }

func (r scheduledPenalty) Penalty(b *RegBatch) (*nn.Tensor, error) {
	if !b.Tape.NoGrad {
		return b.Tape.Const(1, 1, []float64{0}), nil
	}
	v := r.perEpoch[*r.calls]
	*r.calls++
	return b.Tape.Const(1, 1, []float64{v}), nil
}

func argmin(v []float64) int {
	k := 0
	for i := range v {
		if v[i] < v[k] {
			k = i
		}
	}
	return k
}

// TestSelectionRule checks which epoch training keeps: with a regularizer, by default the one
// with the least validation loss + validation penalty (here epoch 1, since later epochs carry a
// penalty of 10), and early stopping counts from it; with SelectLoss the one with the least
// validation loss alone (a later epoch, since training lowers it).
func TestSelectionRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	prior, theta, x := gaussianPairs(rng, 200)
	schedule := []float64{0, 10, 10, 10, 10, 10, 10, 10}
	for _, c := range []struct {
		sel       Selection
		patience  int
		wantSel   Selection
		wantEpoch func(r *TrainResult) int
		wantRun   int
	}{
		{SelectDefault, 20, SelectRegularized, func(*TrainResult) int { return 1 }, 8},
		{SelectDefault, 2, SelectRegularized, func(*TrainResult) int { return 1 }, 3},
		{SelectRegularized, 20, SelectRegularized, func(*TrainResult) int { return 1 }, 8},
		{SelectLoss, 20, SelectLoss, func(r *TrainResult) int { return argmin(r.ValLoss) + 1 }, 8},
	} {
		calls := 0
		e := NewNPE(prior, NPEConfig{Hidden: 16, Transforms: 2})
		res, err := e.Train(theta, x, TrainConfig{Epochs: 8, BatchSize: 50, LearningRate: 3e-3, Seed: 2,
			Patience: c.patience, Select: c.sel, Regularizer: scheduledPenalty{schedule, &calls}})
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("Select %v, patience %d", c.sel, c.patience)
		if res.Select != c.wantSel || res.Epochs != c.wantRun {
			t.Errorf("%s: selection %v after %d epochs, want %v after %d", name, res.Select, res.Epochs, c.wantSel, c.wantRun)
		}
		if want := c.wantEpoch(res); res.BestEpoch != want {
			t.Errorf("%s: best epoch %d, want %d (validation loss %.4f, penalty %v)", name, res.BestEpoch, want, res.ValLoss, res.ValRegTerm)
		}
		if c.wantSel == SelectLoss {
			if res.ValRegTerm != nil || res.BestEpoch == 1 {
				t.Errorf("%s: validation penalty %v, best epoch %d; want none and an epoch after the first", name, res.ValRegTerm, res.BestEpoch)
			}
			continue
		}
		if len(res.ValRegTerm) != res.Epochs || res.ValRegTerm[0] != 0 || res.ValRegTerm[1] != 10 {
			t.Errorf("%s: validation penalty per epoch %v, want the schedule %v", name, res.ValRegTerm, schedule[:res.Epochs])
		}
		if k := argmin(res.ValLoss); k == 0 {
			t.Errorf("%s: the validation loss alone is least at epoch 1, so this case cannot tell the rules apart", name)
		}
		// The kept weights are epoch 1's.
		_, val, _ := splitRows(rand.New(rand.NewPCG(2, 0x7261696e)), 200, 0.1)
		d := &trainData{theta: theta, x: x, thetaZ: e.zt.apply(theta), xZ: e.zx.apply(x)}
		if got, _, _ := evalLoss((*npeModel)(e), d, val, 50, nil, 0); math.Abs(got-res.ValLoss[0]) > 1e-9 || res.BestLoss != res.ValLoss[0] {
			t.Errorf("%s: restored weights score %v, best loss %v; want epoch 1's validation loss %v", name, got, res.BestLoss, res.ValLoss[0])
		}
	}
	if _, err := NewNPE(prior, NPEConfig{}).Train(theta, x, TrainConfig{Epochs: 1, Select: SelectRegularized}); err == nil || !strings.Contains(err.Error(), "needs a Regularizer") {
		t.Errorf("SelectRegularized without a regularizer: error %v, want one asking for a Regularizer", err)
	}
}

// TestTrainValidationPairs checks the validation pairs given apart from the training pairs
// (TrainConfig.ValTheta, ValX): every given pair trains, the given pairs score the epochs (the
// kept weights score the best epoch's validation loss on them), and they do not touch training
// itself: two validation sets give the same training losses, epoch by epoch, when neither stops
// early, while their validation losses differ. Bad validation pairs are refused with an error.
func TestTrainValidationPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 4))
	prior, theta, x := gaussianPairs(rng, 160)
	_, vTheta, vX := gaussianPairs(rng, 60)
	// a second validation set from another model: θ far from the prior's, so its loss is larger
	_, wTheta, wX := gaussianPairs(rng, 60)
	for i := 0; i < 60; i++ {
		wTheta.Set(i, 0, wTheta.At(i, 0)+4)
	}
	train := func(vt, vx *mat.Dense) (*NPE, *TrainResult) {
		e := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1})
		res, err := e.Train(theta, x, TrainConfig{Epochs: 6, Patience: 6, BatchSize: 40, LearningRate: 3e-3, Seed: 5, ValTheta: vt, ValX: vx})
		if err != nil {
			t.Fatal(err)
		}
		return e, res
	}
	e, a := train(vTheta, vX)
	_, b := train(wTheta, wX)
	if a.TrainRows != 160 || a.ValRows != 60 {
		t.Errorf("%d training and %d validation pairs, want 160 and 60", a.TrainRows, a.ValRows)
	}
	for k := range a.TrainLoss {
		if a.TrainLoss[k] != b.TrainLoss[k] {
			t.Fatalf("epoch %d: training loss %v with one validation set and %v with another: the validation pairs changed training", k+1, a.TrainLoss[k], b.TrainLoss[k])
		}
	}
	if !(b.ValLoss[0] > a.ValLoss[0]+0.5) {
		t.Errorf("validation loss of epoch 1: %v on pairs of the model, %v on shifted pairs; want the shifted pairs' larger by 0.5 nats: the given pairs were not scored", a.ValLoss[0], b.ValLoss[0])
	}
	d := &trainData{theta: vTheta, x: vX, thetaZ: e.zt.apply(vTheta), xZ: e.zx.apply(vX)}
	rows := make([]int, 60)
	for i := range rows {
		rows[i] = i
	}
	if got, _, _ := evalLoss((*npeModel)(e), d, rows, 40, nil, 0); math.Abs(got-a.ValLoss[a.BestEpoch-1]) > 1e-9 {
		t.Errorf("the kept weights score %v on the validation pairs, want the best epoch's (%d) validation loss %v", got, a.BestEpoch, a.ValLoss[a.BestEpoch-1])
	}

	bad := mat.DenseCopyOf(vX)
	bad.Set(3, 1, math.NaN())
	for _, c := range []struct {
		cfg  TrainConfig
		want string
	}{
		{TrainConfig{ValTheta: vTheta}, "only one of ValTheta and ValX"},
		{TrainConfig{ValTheta: vTheta, ValX: vX, ValidationFraction: 0.2}, "ValidationFraction = 0.2 with ValTheta"},
		{TrainConfig{ValTheta: vTheta, ValX: bad}, "validation pairs hold NaN"},
		{TrainConfig{ValTheta: vTheta, ValX: mat.NewDense(60, 3, nil)}, "ValX has 3 columns"},
		{TrainConfig{ValTheta: mat.NewDense(59, 2, nil), ValX: vX}, "59 rows and x 60"},
	} {
		c.cfg.Epochs = 1
		e := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1})
		if _, err := e.Train(theta, x, c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one saying %q", err, c.want)
		}
		if e.Trained() {
			t.Errorf("%s: trained despite the error", c.want)
		}
	}
}

// TestTrainBatchLargerThanSet checks a BatchSize above the training pairs, as sbibm's
// training_batch_size=10000 at 10,000 simulations: the whole training set is one batch per
// epoch, so the losses equal those of a batch of exactly the training pairs, epoch by epoch,
// and differ from those of the default batch of 200, which takes two steps per epoch here.
func TestTrainBatchLargerThanSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	prior, theta, x := gaussianPairs(rng, 300) // 270 training pairs, 30 validation pairs
	train := func(batch int) *TrainResult {
		e := NewNLE(prior, NLEConfig{Hidden: 8, Transforms: 2})
		res, err := e.Train(theta, x, TrainConfig{Epochs: 5, Patience: 5, BatchSize: batch, LearningRate: 3e-3, Seed: 4})
		if err != nil {
			t.Fatalf("BatchSize %d: %v", batch, err)
		}
		return res
	}
	whole, large, def := train(270), train(10000), train(0)
	if large.TrainRows != 270 || large.Epochs != 5 {
		t.Fatalf("BatchSize 10000: %d training pairs over %d epochs, want 270 over 5", large.TrainRows, large.Epochs)
	}
	for k := range whole.TrainLoss {
		if large.TrainLoss[k] != whole.TrainLoss[k] || large.ValLoss[k] != whole.ValLoss[k] {
			t.Errorf("epoch %d: BatchSize 10000 gives losses %v/%v, BatchSize 270 (the whole set) %v/%v; want equal",
				k+1, large.TrainLoss[k], large.ValLoss[k], whole.TrainLoss[k], whole.ValLoss[k])
		}
	}
	if def.ValLoss[4] == large.ValLoss[4] {
		t.Errorf("BatchSize 10000 gives the default batch's validation loss %v at epoch 5, want one batch of the whole set", def.ValLoss[4])
	}
}
