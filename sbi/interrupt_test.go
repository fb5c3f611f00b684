package sbi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/internal/progresstest"
	"github.com/gosbi/gosbi/runenv"
)

// trainer is what the interrupt tests need of an estimator.
type trainer interface {
	Train(theta, x *mat.Dense, cfg TrainConfig) (*TrainResult, error)
	TrainContext(ctx context.Context, theta, x *mat.Dense, cfg TrainConfig) (*TrainResult, error)
	MustTrain(theta, x *mat.Dense, cfg TrainConfig) *TrainResult
	Trained() bool
	Posterior(x []float64) Posterior
}

func interruptEstimators(t *testing.T) (map[string]func() trainer, *mat.Dense, *mat.Dense) {
	rng := rand.New(rand.NewPCG(4, 5))
	prior, theta, x := gaussianPairs(rng, 300)
	return map[string]func() trainer{
		"NPE": func() trainer { return NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 2}) },
		"NRE": func() trainer { return NewNRE(prior, NREConfig{Hidden: []int{8}}) },
	}, theta, x
}

// stepsPerEpoch is the number of steps of an epoch of the tests' training: 270 training pairs
// (300 less 10% validation) in batches of 20.
const stepsPerEpoch = 14

// TestInterruptKeepsBestEpoch cancels the host's context (runenv, a notebook's interrupt)
// during epoch 4: the estimator keeps the weights of the best of the 3 finished epochs (its
// validation loss is recomputed and must equal the recorded one), is trained and samples, and
// the result and the error say where training stopped and what it kept.
func TestInterruptKeepsBestEpoch(t *testing.T) {
	ests, theta, x := interruptEstimators(t)
	for name, mk := range ests {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			runenv.SetContext(ctx)
			defer runenv.SetContext(nil)
			// The bar's last message is what a notebook shows of a MustTrain that an interrupt
			// stopped: its panic comes after the interrupt has ended the cell.
			last := progresstest.Record(t).Last
			steps := 0
			reg := cancelAtStep{cancelAt: 3*stepsPerEpoch + 2, steps: &steps, cancel: cancel}
			e := mk()
			res, err := e.Train(theta, x, TrainConfig{Epochs: 50, BatchSize: 20, Seed: 1, Regularizer: reg, Select: SelectLoss})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want one wrapping context.Canceled", err)
			}
			if res == nil || !res.Interrupted || res.Epochs != 3 || res.BestEpoch < 1 || res.BestEpoch > 3 {
				t.Fatalf("result %+v: want an interrupted result with 3 finished epochs and a best among them", res)
			}
			want := fmt.Sprintf("stopped at epoch 4 by interrupt; best epoch %d kept", res.BestEpoch)
			for what, s := range map[string]string{"error": err.Error(), "String": res.String(), "HTML": res.MIMEBundle()["text/html"].(string),
				"progress bar's last message": last().Message} {
				if !strings.Contains(s, want) {
					t.Errorf("%s %q does not say %q", what, s, want)
				}
			}
			// The whole last line reads as one sentence: the count, then where it stopped.
			if line, end := last().String(), "] 3/50 "+want; !strings.HasSuffix(line, end) {
				t.Errorf("progress bar's last line %q, want it to end %q", line, end)
			}
			if !e.Trained() {
				t.Fatal("Trained() = false after an interrupt with 3 finished epochs")
			}
			if got := validationLoss(t, e, theta, x); math.Abs(got-res.ValLoss[res.BestEpoch-1]) > 1e-9 {
				t.Errorf("validation loss of the kept weights %v, best epoch's %v: the best weights were not kept", got, res.ValLoss[res.BestEpoch-1])
			}
			runenv.SetContext(nil) // the next cell runs with a fresh context
			if s := e.Posterior([]float64{0.2, -0.3}).Sample(rand.New(rand.NewPCG(1, 1)), 50); s.RawMatrix().Rows != 50 {
				t.Errorf("sampling after the interrupt gave %d rows", s.RawMatrix().Rows)
			}
		})
	}
}

// validationLoss recomputes the validation loss of e's current weights on the split Train made.
func validationLoss(t *testing.T, e trainer, theta, x *mat.Dense) float64 {
	t.Helper()
	var m model
	var c *estimator
	switch v := e.(type) {
	case *NPE:
		m, c = (*npeModel)(v), &v.estimator
	case *NRE:
		m, c = (*nreModel)(v), &v.estimator
	}
	_, val, _ := splitRows(rand.New(rand.NewPCG(1, 0x7261696e)), 300, 0.1)
	d := &trainData{theta: theta, x: x, thetaZ: c.zt.apply(theta), xZ: c.zx.apply(x)}
	got, _, err := evalLoss(m, d, val, 20, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestInterruptBeforeAnEpoch cancels in the first step: no epoch finished, so the fresh
// estimator stays untrained, says so, and its posterior refuses with ErrUntrained; MustTrain
// panics with the same error (an error value wrapping context.Canceled).
func TestInterruptBeforeAnEpoch(t *testing.T) {
	ests, theta, x := interruptEstimators(t)
	for name, mk := range ests {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			runenv.SetContext(ctx)
			defer runenv.SetContext(nil)
			last := progresstest.Record(t).Last
			steps := 0
			e := mk()
			var res *TrainResult
			func() {
				defer func() {
					r := recover()
					err, ok := r.(error)
					if !ok || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "no epoch finished, the estimator is not trained") {
						t.Errorf("MustTrain panicked with %v, want an error wrapping context.Canceled that says the estimator is not trained", r)
					}
				}()
				res = e.MustTrain(theta, x, TrainConfig{Epochs: 5, BatchSize: 20, Seed: 1, Select: SelectLoss,
					Regularizer: cancelAtStep{cancelAt: 1, steps: &steps, cancel: cancel}})
			}()
			if res != nil || e.Trained() {
				t.Errorf("MustTrain returned %v and Trained() = %v, want a panic and an untrained estimator", res, e.Trained())
			}
			if ev := last(); !ev.Finished || !strings.Contains(ev.Message, "stopped at epoch 1 by interrupt; no epoch finished, the estimator is not trained") {
				t.Errorf("the progress bar's last event %+v does not say that the estimator is not trained", ev)
			}
			_, err := e.Posterior([]float64{0, 0}).(contextSampler).SampleContext(context.Background(), rand.New(rand.NewPCG(1, 1)), 5)
			if !errors.Is(err, ErrUntrained) {
				t.Errorf("sampling the untrained estimator: %v, want ErrUntrained", err)
			}
		})
	}
}

// TestInterruptResumedBeforeAnEpoch interrupts a resumed training in its first step: the
// estimator keeps the weights of its earlier training, and the error and the progress bar's
// last message say so.
func TestInterruptResumedBeforeAnEpoch(t *testing.T) {
	ests, theta, x := interruptEstimators(t)
	for name, mk := range ests {
		t.Run(name, func(t *testing.T) {
			e := mk()
			if _, err := e.Train(theta, x, TrainConfig{Epochs: 2, BatchSize: 20, Seed: 1}); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			runenv.SetContext(ctx)
			defer runenv.SetContext(nil)
			last := progresstest.Record(t).Last
			steps := 0
			_, err := e.Train(theta, x, TrainConfig{Epochs: 5, BatchSize: 20, Seed: 1, Select: SelectLoss, Resume: true,
				Regularizer: cancelAtStep{cancelAt: 1, steps: &steps, cancel: cancel}})
			want := "stopped at epoch 1 by interrupt; no epoch finished, the weights from before are kept"
			if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), want) || !e.Trained() {
				t.Errorf("error %v, trained %v; want context.Canceled saying %q, trained", err, e.Trained(), want)
			}
			if ev := last(); !ev.Finished || !strings.Contains(ev.Message, want) {
				t.Errorf("the progress bar's last event %+v does not say %q", ev, want)
			}
		})
	}
}

// TestTrainContextCancelsOneOfTwo trains two estimators at once with two contexts and cancels
// one during its third epoch: that one stops and keeps a finished epoch, the other runs all its
// 6 epochs. Meanwhile the host's context is cancelled, which TrainContext must not heed.
func TestTrainContextCancelsOneOfTwo(t *testing.T) {
	ests, theta, x := interruptEstimators(t)
	host, cancelHost := context.WithCancel(context.Background())
	cancelHost()
	runenv.SetContext(host)
	defer runenv.SetContext(nil)
	for name, mk := range ests {
		t.Run(name, func(t *testing.T) {
			ctxA, cancelA := context.WithCancel(context.Background())
			defer cancelA()
			ctxB, cancelB := context.WithCancel(context.Background())
			defer cancelB()
			a, b := mk(), mk()
			var resA, resB *TrainResult
			var errA, errB error
			var wg sync.WaitGroup
			wg.Add(2)
			go func() {
				defer wg.Done()
				steps := 0
				resA, errA = a.TrainContext(ctxA, theta, x, TrainConfig{Epochs: 6, BatchSize: 20, Seed: 1, Select: SelectLoss,
					Regularizer: cancelAtStep{cancelAt: 2*stepsPerEpoch + 3, steps: &steps, cancel: cancelA}})
			}()
			go func() {
				defer wg.Done()
				resB, errB = b.TrainContext(ctxB, theta, x, TrainConfig{Epochs: 6, BatchSize: 20, Seed: 2, Patience: 100})
			}()
			wg.Wait()
			if !errors.Is(errA, context.Canceled) || resA == nil || !resA.Interrupted || resA.Epochs != 2 || !a.Trained() {
				t.Errorf("cancelled training: error %v, result %v, trained %v; want context.Canceled after 2 epochs, trained", errA, resA, a.Trained())
			}
			if errB != nil || resB.Interrupted || resB.Epochs != 6 || !b.Trained() {
				t.Errorf("other training: error %v, result %v; want all 6 epochs and no interrupt", errB, resB)
			}
		})
	}
}

// TestNonFinitePairs drops failed simulations with a count and a warning above
// DropWarnFraction (5% here, none at 0.67%), refuses them with RefuseNonFinite, and puts the
// warning into the progress bar's last message, where a cell that does not show the result
// sees it.
func TestNonFinitePairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	prior, theta, x := gaussianPairs(rng, 300)
	for i := 0; i < 15; i++ { // 5%
		x.Set(20*i, i%2, math.NaN())
	}
	theta.Set(7, 0, math.Inf(1))
	for name, e := range map[string]interface {
		Train(theta, x *mat.Dense, cfg TrainConfig) (*TrainResult, error)
	}{"NPE": NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1}), "NRE": NewNRE(prior, NREConfig{Hidden: []int{8}})} {
		rec := progresstest.Record(t)
		res, err := e.Train(theta, x, TrainConfig{Epochs: 2, Seed: 1})
		runenv.SetProgress(nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Dropped != 16 || math.Abs(res.DroppedFraction()-16.0/300) > 1e-12 || len(res.Warnings) != 1 {
			t.Fatalf("%s: dropped %d (%.4f), warnings %q; want 16 (0.0533) and one warning", name, res.Dropped, res.DroppedFraction(), res.Warnings)
		}
		note := map[string]string{"NPE": "given that the simulation succeeded", "NRE": "biased"}[name]
		if w := res.Warnings[0]; !strings.Contains(w, "16 of 300 pairs (5.3%)") || !strings.Contains(w, note) || !strings.Contains(w, "RefuseNonFinite") {
			t.Errorf("%s: warning %q: want the count, the fraction, what dropping does (%q) and the way to refuse", name, w, note)
		}
		if !strings.Contains(res.String(), "\nwarning: 16 of 300") || !strings.Contains(res.MIMEBundle()["text/html"].(string), "warning:") {
			t.Errorf("%s: String %q or its HTML lacks the warning", name, res.String())
		}
		if last := rec.Last(); !last.Finished || !strings.Contains(last.Message, "warning: 16 of 300") {
			t.Errorf("%s: last progress event %+v: want the warning as its message", name, last)
		}
		_, err = e.Train(theta, x, TrainConfig{Epochs: 2, Seed: 1, RefuseNonFinite: true})
		if !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), "16 of 300 pairs") || !strings.Contains(err.Error(), "row 0") {
			t.Errorf("%s with RefuseNonFinite: error %v, want ErrNonFinite naming the count and the first row", name, err)
		}
	}
	few, _ := DropInvalid(theta, x) // the 285 finite-x rows, θ row 7 still infinite
	th2, x2 := few.Theta.Slice(0, 283, 0, 2).(*mat.Dense), few.X.Slice(0, 283, 0, 2).(*mat.Dense)
	res, err := NewNRE(prior, NREConfig{Hidden: []int{8}}).Train(th2, x2, TrainConfig{Epochs: 1, Seed: 1})
	if err != nil || res.Dropped != 1 || len(res.Warnings) != 0 {
		t.Errorf("1 of 283 pairs non-finite: error %v, dropped %d, warnings %q; want 1 dropped and no warning below 1%%", err, res.Dropped, res.Warnings)
	}
}
