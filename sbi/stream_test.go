package sbi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/internal/progresstest"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/npy"
	"github.com/gosbi/gosbi/sbi/simstore"
	"gonum.org/v1/gonum/mat"
)

// storeOf writes theta and x to a new store in chunks of chunk rows. The chunks are named
// c000.npz, c001.npz, … (as a store's chunks may be named: Append's names hold the time and
// random bits), so that a Split of the store, which draws each chunk's part from its name, is
// the same in every run.
func storeOf(t *testing.T, theta, x *mat.Dense, chunk int) *simstore.Store {
	t.Helper()
	n, pt := theta.Dims()
	_, dx := x.Dims()
	dir := t.TempDir()
	if _, err := simstore.Create(dir, pt, dx); err != nil {
		t.Fatal(err)
	}
	for lo := 0; lo < n; lo += chunk {
		hi := min(n, lo+chunk)
		arrays := []mat.Matrix{theta.Slice(lo, hi, 0, pt), x.Slice(lo, hi, 0, dx)}
		path := filepath.Join(dir, "chunks", fmt.Sprintf("c%03d.npz", lo/chunk))
		if err := npy.WriteNPZFile(path, []string{"theta", "x"}, arrays, false); err != nil {
			t.Fatal(err)
		}
	}
	s, err := simstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestNPETrainStreamConjugate trains NPE from a store on θ ~ N(0, I₂), x = θ + 0.5ε and
// compares posterior samples with the closed form N(x/1.25, 0.2·I), with the tolerances of
// TestNPEConjugateGaussian (the same budget, trained in memory there).
func TestNPETrainStreamConjugate(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	prior, theta, x := gaussianPairs(rng, 2200)
	s := storeOf(t, theta, x, 200)
	train, val, err := s.Split(0.1, 1)
	if err != nil {
		t.Fatal(err)
	}
	e := NewNPE(prior, NPEConfig{Hidden: 32, Transforms: 2})
	res, err := e.TrainStream(train, val, TrainConfig{Epochs: 20, BatchSize: 100, LearningRate: 3e-3, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.TrainRows != 2000 || res.ValRows != 200 || len(res.ValLoss) != res.Epochs {
		t.Errorf("%d training and %d validation pairs over %d epochs (%d validation scores), want 2000 and 200", res.TrainRows, res.ValRows, res.Epochs, len(res.ValLoss))
	}
	for _, xo := range [][]float64{{0.3, -0.8}, {1.5, 0.5}} {
		smp := e.Posterior(xo).Sample(rand.New(rand.NewPCG(1, 1)), 4000)
		for j := 0; j < 2; j++ {
			checkGaussian(t, "NPE from a store", smp, j, xo[j]/1.25, math.Sqrt(0.2), 0.15)
		}
	}
}

// TestNRETrainStream checks that the ratio estimator trains from a store too: without
// validation, its posterior at x = (0.5, −0.5) has the moments of the closed form N(x/1.25,
// 0.2·I) within the tolerance of TestNRESamplersConjugate.
func TestNRETrainStream(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	prior, theta, x := gaussianPairs(rng, 4000)
	e := NewNRE(prior, NREConfig{Hidden: []int{32, 32}})
	if _, err := e.TrainStream(storeOf(t, theta, x, 500), nil, TrainConfig{Epochs: 40, BatchSize: 100, LearningRate: 1e-3, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	smp, err := e.PosteriorWith([]float64{0.5, -0.5}, SamplerConfig{}).SampleContext(context.Background(), rand.New(rand.NewPCG(2, 2)), 3000)
	if err != nil {
		t.Fatal(err)
	}
	checkGaussian(t, "NRE from a store", smp, 0, 0.4, math.Sqrt(0.2), 0.2)
	checkGaussian(t, "NRE from a store", smp, 1, -0.4, math.Sqrt(0.2), 0.2)
}

// TestStreamZScoreMatchesMemory checks the one-pass standardization against fitZScore, also
// for x at the scale 1e200 (where unscaled sums of squares overflow), and that non-finite
// pairs are dropped and counted.
func TestStreamZScoreMatchesMemory(t *testing.T) {
	for _, scale := range []float64{1, 1e200} {
		rng := rand.New(rand.NewPCG(3, 4))
		_, theta, x := gaussianPairs(rng, 500)
		for i := 0; i < 500; i++ {
			x.Set(i, 1, 1e6+3*x.At(i, 1)) // a large offset: the naive sum of squares would lose digits
		}
		x.Scale(scale, x)
		x.Set(10, 0, math.NaN())
		theta.Set(11, 1, math.Inf(-1))
		zt, zx, usable, dropped, _, err := streamZScore(storeOf(t, theta, x, 64), 37, nil)
		if err != nil {
			t.Fatal(err)
		}
		if usable != 498 || dropped != 2 {
			t.Fatalf("%d usable and %d dropped, want 498 and 2", usable, dropped)
		}
		th, xx, _, _ := dropNonFinite(theta, x)
		idx := make([]int, 498)
		for i := range idx {
			idx[i] = i
		}
		wt, err := fitZScore("θ", th, idx)
		if err != nil {
			t.Fatal(err)
		}
		wx, err := fitZScore("x", xx, idx)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			got, want zscore
			scale     float64
		}{{zt, wt, 1}, {zx, wx, scale}} {
			for j := range c.got.Mean {
				if math.Abs(c.got.Mean[j]-c.want.Mean[j]) > 1e-9*max(c.scale, math.Abs(c.want.Mean[j])) || math.Abs(c.got.Std[j]/c.want.Std[j]-1) > 1e-9 {
					t.Errorf("scale %g, column %d: streamed mean %v sd %v, in memory %v and %v", scale, j, c.got.Mean[j], c.got.Std[j], c.want.Mean[j], c.want.Std[j])
				}
				if sd := c.want.Std[j] / c.scale; !(sd > 0.1 && sd < 10) {
					t.Errorf("scale %g, column %d: sd %v in units of the scale, want about 1 to 3", scale, j, sd)
				}
			}
		}
	}
}

// TestTrainStreamRefusesMismatch checks the errors for a source of the wrong widths.
func TestTrainStreamRefusesMismatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	prior, theta, x := gaussianPairs(rng, 50)
	s := storeOf(t, theta, x, 25)
	other := storeOf(t, theta, x.Slice(0, 50, 0, 1).(*mat.Dense), 25)
	e := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1})
	if _, err := e.TrainStream(s, other, TrainConfig{Epochs: 1}); err == nil || !strings.Contains(err.Error(), "validation pairs of 2 and 1 values") {
		t.Errorf("mismatched validation source: %v", err)
	}
	if _, err := NewNPE(dist.NewStandardNormal(3), NPEConfig{}).TrainStream(s, nil, TrainConfig{Epochs: 1}); err == nil || !strings.Contains(err.Error(), "prior has 3") {
		t.Errorf("θ of the wrong width: %v", err)
	}
	if _, err := e.TrainStream(nil, nil, TrainConfig{}); err == nil {
		t.Error("a nil source was accepted")
	}
	if _, err := e.TrainStream(s, nil, TrainConfig{Epochs: 1, ValTheta: theta, ValX: x}); err == nil || !strings.Contains(err.Error(), "ValTheta and ValX are set") {
		t.Errorf("TrainConfig.ValTheta with a stream: error %v, want one saying the validation pairs come as a source", err)
	}
	if e.Trained() {
		t.Error("trained despite the refused configuration")
	}
}

// TestTrainStreamInterruptAndNonFinite gives streamed training the rules of Train: a store
// with 5% failed simulations is trained with a count and a warning, or refused with
// RefuseNonFinite; a context cancelled during epoch 3 keeps the best of the 2 finished epochs,
// and says so.
func TestTrainStreamInterruptAndNonFinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	prior, theta, x := gaussianPairs(rng, 600)
	for i := 0; i < 30; i++ {
		x.Set(20*i, 0, math.NaN())
	}
	s := storeOf(t, theta, x, 200)
	train, val, err := s.Split(0.1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewNPE(prior, NPEConfig{Hidden: 8}).TrainStream(train, val, TrainConfig{Epochs: 2, RefuseNonFinite: true}); !errors.Is(err, ErrNonFinite) {
		t.Errorf("RefuseNonFinite: %v, want ErrNonFinite", err)
	}
	steps := 0 // steps of one epoch, counted by a regularizer that never cancels
	cfg := TrainConfig{Epochs: 1, BatchSize: 50, Seed: 1, Select: SelectLoss, Regularizer: cancelAtStep{cancelAt: -1, steps: &steps}}
	if _, err := NewNPE(prior, NPEConfig{Hidden: 8}).TrainStream(train, val, cfg); err != nil {
		t.Fatal(err)
	}
	perEpoch := steps
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	steps = 0
	cfg.Epochs, cfg.Regularizer = 10, cancelAtStep{cancelAt: 2*perEpoch + 1, steps: &steps, cancel: cancel}
	e := NewNPE(prior, NPEConfig{Hidden: 8})
	last := progresstest.Record(t).Last
	res, err := e.TrainStreamContext(ctx, train, val, cfg)
	if !errors.Is(err, context.Canceled) || res == nil || !res.Interrupted || res.Epochs != 2 || !e.Trained() {
		t.Fatalf("cancelled in epoch 3: error %v, result %v, trained %v; want context.Canceled, 2 epochs, trained", err, res, e.Trained())
	}
	want := fmt.Sprintf("stopped at epoch 3 by interrupt; best epoch %d kept", res.BestEpoch)
	if !strings.Contains(err.Error(), want) || !strings.Contains(res.String(), want) || !strings.Contains(last().Message, want) {
		t.Errorf("error %q, result %q and the progress bar's last message %q should say %q", err, res, last().Message, want)
	}
	if res.Dropped == 0 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "held NaN or ±Inf") {
		t.Errorf("dropped %d, warnings %q: want the failed simulations counted and warned about", res.Dropped, res.Warnings)
	}
}

// TestTrainStreamReservoir checks that a TrainStream does not leave the observation check
// with the reservoir of an earlier Train: its summaries were made with the earlier
// standardization and network. The earlier pairs have independent columns of x, the streamed
// ones x₂ ≈ x₁; at x = (2, −2), far from the streamed simulations, a check against the old
// reservoir says "not far outside". The check must either be made against the streamed pairs
// or say that there is no reservoir.
func TestTrainStreamReservoir(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	prior, theta, x := gaussianPairs(rng, 600)
	for _, c := range []struct {
		name   string
		resume bool
	}{{"fresh", false}, {"resumed", true}} {
		t.Run(c.name, func(t *testing.T) {
			e := NewNRE(prior, NREConfig{Hidden: []int{8}, Embedding: MLPEmbedding{Hidden: []int{8}, Out: 2}})
			if _, err := e.Train(theta, x, TrainConfig{Epochs: 2, Seed: 1}); err != nil {
				t.Fatal(err)
			}
			if _, err := e.CheckObservation([]float64{2, -2}); err != nil {
				t.Fatalf("after Train: %v, expected a reservoir", err)
			}
			diag := mat.DenseCopyOf(x)
			for i := 0; i < 600; i++ {
				diag.Set(i, 1, diag.At(i, 0)+0.01*rng.NormFloat64())
			}
			if _, err := e.TrainStream(storeOf(t, theta, diag, 200), nil, TrainConfig{Epochs: 2, Seed: 2, Resume: c.resume}); err != nil {
				t.Fatal(err)
			}
			chk, err := e.CheckObservation([]float64{2, -2})
			if err == nil && !chk.Outside {
				t.Errorf("after TrainStream on pairs with x₂ ≈ x₁, the check of x = (2, −2) says %q: it used the reservoir of the earlier Train", chk.Verdict())
			}
			if err != nil && !errors.Is(err, errNoReservoir) {
				t.Errorf("after TrainStream: %v, expected a check or errNoReservoir", err)
			}
		})
	}
}

// TestTrainStreamValidationNonFinite checks that failed simulations in the validation source
// are treated as those of the training source: counted in Dropped (and DroppedFraction),
// refused under RefuseNonFinite, and a validation source without one finite pair is refused
// before training, leaving an estimator trained before as it was.
func TestTrainStreamValidationNonFinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	prior, theta, x := gaussianPairs(rng, 450)
	train := storeOf(t, theta.Slice(0, 400, 0, 2).(*mat.Dense), x.Slice(0, 400, 0, 2).(*mat.Dense), 200)
	vx := mat.DenseCopyOf(x.Slice(400, 450, 0, 2))
	for _, i := range []int{3, 17, 41} {
		vx.Set(i, 1, math.Inf(1))
	}
	vt := theta.Slice(400, 450, 0, 2).(*mat.Dense)
	val := storeOf(t, vt, vx, 20)
	e := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1})
	res, err := e.TrainStream(train, val, TrainConfig{Epochs: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Dropped != 3 || res.ValRows != 47 || res.TrainRows != 400 {
		t.Errorf("dropped %d, %d training and %d validation pairs; want 3 dropped (all in validation), 400 and 47", res.Dropped, res.TrainRows, res.ValRows)
	}
	if _, err := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1}).TrainStream(train, val, TrainConfig{Epochs: 1, RefuseNonFinite: true}); !errors.Is(err, ErrNonFinite) {
		t.Errorf("RefuseNonFinite with failed validation simulations: %v, want ErrNonFinite", err)
	}
	allBad := mat.DenseCopyOf(vx)
	for i := 0; i < 50; i++ {
		allBad.Set(i, 0, math.NaN())
	}
	probe := mat.NewDense(1, 2, []float64{0.3, -0.2})
	before := e.LogProbPairs(probe, probe)
	if _, err := e.TrainStream(train, storeOf(t, vt, allBad, 20), TrainConfig{Epochs: 1, Seed: 5}); err == nil || !strings.Contains(err.Error(), "validation") {
		t.Errorf("a validation source without a finite pair: %v, want an error about the validation pairs", err)
	}
	if !e.Trained() {
		t.Fatal("the NPE trained before is no longer trained")
	}
	if after := e.LogProbPairs(probe, probe); after[0] != before[0] {
		t.Errorf("log-density %v after the refused training, %v before", after[0], before[0])
	}
}

// TestTrainStreamEmptyValidation checks that a validation source holding no pairs (a store
// opened before its jobs appended) is refused, as TrainStream's doc says of a validation
// source without a finite pair, instead of training without validation without a word.
func TestTrainStreamEmptyValidation(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	prior, theta, x := gaussianPairs(rng, 100)
	train := storeOf(t, theta, x, 50)
	for _, c := range []struct {
		name  string
		train func(val simstore.Source) error
	}{
		{"NPE", func(val simstore.Source) error {
			_, err := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1}).TrainStream(train, val, TrainConfig{Epochs: 1, Seed: 1})
			return err
		}},
		{"NRE", func(val simstore.Source) error {
			_, err := NewNRE(prior, NREConfig{Hidden: []int{8}}).TrainStream(train, val, TrainConfig{Epochs: 1, Seed: 1})
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			empty, err := simstore.Create(t.TempDir(), 2, 2)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.train(empty); err == nil || !strings.Contains(err.Error(), "validation source holds no pairs") {
				t.Errorf("an empty validation source: %v, want an error saying it holds no pairs", err)
			}
		})
	}
}

// TestTrainStreamNilStore checks that a nil *simstore.Store given as a source (a store whose
// Open failed and whose error went unread) is an error naming the source, not a panic in the
// store's methods.
func TestTrainStreamNilStore(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	prior, theta, x := gaussianPairs(rng, 100)
	store := storeOf(t, theta, x, 50)
	var none *simstore.Store
	for _, c := range []struct {
		name       string
		train, val simstore.Source
		want       string
	}{
		{"nil store for training", none, store, "training source is a nil"},
		{"nil store for validation", store, none, "validation source is a nil"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, fit := range []func() error{
				func() error {
					_, err := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1}).TrainStream(c.train, c.val, TrainConfig{Epochs: 1, Seed: 1})
					return err
				},
				func() error {
					_, err := NewNRE(prior, NREConfig{Hidden: []int{8}}).TrainStream(c.train, c.val, TrainConfig{Epochs: 1, Seed: 1})
					return err
				},
			} {
				var err error
				func() {
					defer func() {
						if r := recover(); r != nil {
							err = fmt.Errorf("panic: %v", r)
						}
					}()
					err = fit()
				}()
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("got %v, want an error saying %q", err, c.want)
				}
			}
		})
	}
}

// TestTrainStreamRefusesSharedChunks checks that a validation source that reads chunks the
// training source reads (the whole store beside one of its parts) is refused: its validation
// loss would score pairs that training sees. The two parts of a Split train as before.
func TestTrainStreamRefusesSharedChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	prior, theta, x := gaussianPairs(rng, 200)
	store := storeOf(t, theta, x, 20)
	train, val, err := store.Split(0.3, 1)
	if err != nil {
		t.Fatal(err)
	}
	fit := func(tr, va simstore.Source) error {
		_, err := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1}).TrainStream(tr, va, TrainConfig{Epochs: 1, Seed: 1})
		return err
	}
	if err := fit(store, val); err == nil || !strings.Contains(err.Error(), "shares the chunk") {
		t.Errorf("the store for training and its part for validation: %v, want an error saying they share a chunk", err)
	}
	if err := fit(train, val); err != nil {
		t.Errorf("the two parts of a split: %v", err)
	}
}
