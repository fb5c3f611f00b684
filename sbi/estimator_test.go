package sbi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/flow"
	"gonum.org/v1/gonum/mat"
)

// meanStd returns the mean and standard deviation of column j of s.
func meanStd(s *mat.Dense, j int) (float64, float64) {
	n, _ := s.Dims()
	var m, v float64
	for i := 0; i < n; i++ {
		m += s.At(i, j) / float64(n)
	}
	for i := 0; i < n; i++ {
		d := s.At(i, j) - m
		v += d * d / float64(n-1)
	}
	return m, math.Sqrt(v)
}

// checkGaussian compares the sample moments of column j with N(mu, sd²). The Monte Carlo
// error of the mean is sd/√n and of the standard deviation sd/√(2n); 4 of those leave a
// 1-in-15,000 false alarm per check. slack is the allowed approximation error of the
// estimator itself, as a fraction of sd.
func checkGaussian(t *testing.T, what string, s *mat.Dense, j int, mu, sd, slack float64) {
	t.Helper()
	n, _ := s.Dims()
	m, v := meanStd(s, j)
	if tol := sd * (slack + 4/math.Sqrt(float64(n))); math.Abs(m-mu) > tol {
		t.Errorf("%s: mean of θ%d = %.4f, expected %.4f ± %.4f", what, j, m, mu, tol)
	}
	if tol := sd * (slack + 4/math.Sqrt(2*float64(n))); math.Abs(v-sd) > tol {
		t.Errorf("%s: sd of θ%d = %.4f, expected %.4f ± %.4f", what, j, v, sd, tol)
	}
}

// TestNPEConjugateGaussian trains NPE on θ ~ N(0, I₂), x = θ + 0.5ε, whose posterior is
// N(x/1.25, 0.2·I), and compares posterior samples with it at two observations.
func TestNPEConjugateGaussian(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	prior, theta, x := gaussianPairs(rng, 2000)
	for _, kind := range []flow.Kind{flow.MAF, flow.NSF} {
		e := NewNPE(prior, NPEConfig{Flow: kind, Hidden: 32, Transforms: 2, Bins: 6})
		if _, err := e.Train(theta, x, TrainConfig{Epochs: 20, BatchSize: 100, LearningRate: 3e-3, Seed: 3}); err != nil {
			t.Fatal(err)
		}
		for _, xo := range [][]float64{{0.3, -0.8}, {1.5, 0.5}} {
			s := e.Posterior(xo).Sample(rand.New(rand.NewPCG(1, 1)), 4000)
			for j := 0; j < 2; j++ {
				// 2000 simulations leave an estimation error of a few percent of the posterior sd.
				checkGaussian(t, "NPE "+string(kind), s, j, xo[j]/1.25, math.Sqrt(0.2), 0.15)
			}
		}
	}
}

// TestNRESamplersConjugate trains NRE on θ ~ U(−3, 3), x = θ + 0.5ε and checks each sampler's
// draws against the posterior N(x, 0.25) (truncation at ±3 is 5 sd away and negligible).
func TestNRESamplersConjugate(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	prior := dist.NewUniformCube(-3, 3, 1)
	theta := prior.Sample(rng, 4000)
	x := mat.NewDense(4000, 1, nil)
	for i := 0; i < 4000; i++ {
		x.Set(i, 0, theta.At(i, 0)+0.5*rng.NormFloat64())
	}
	e := NewNRE(prior, NREConfig{Hidden: []int{32, 32}})
	if _, err := e.Train(theta, x, TrainConfig{Epochs: 80, BatchSize: 100, LearningRate: 1e-3, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	xo := []float64{0.5}
	for _, m := range []SamplerMethod{SamplerGrid, SamplerMCMC, SamplerImportance} {
		p := e.PosteriorWith(xo, SamplerConfig{Method: m})
		s, err := p.SampleContext(context.Background(), rand.New(rand.NewPCG(2, 2)), 3000)
		if err != nil {
			t.Fatal(err)
		}
		// A ratio classifier from 4000 pairs is less exact than a flow: 20% of the sd.
		checkGaussian(t, "NRE "+string(m), s, 0, 0.5, 0.5, 0.2)
		if m == "importance" && !(p.ESS() > 100) {
			t.Errorf("importance sampling ESS %.1f, expected well above 100 for 60,000 prior draws", p.ESS())
		}
	}
}

func TestTrainDeterministicAndDropsNonFinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	prior, theta, x := gaussianPairs(rng, 300)
	x.Set(7, 1, math.NaN())
	theta.Set(20, 0, math.Inf(1))
	run := func() ([]float64, *TrainResult) {
		e := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 2})
		res, err := e.Train(theta, x, TrainConfig{Epochs: 3, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		return e.LogProbPairs(theta.Slice(0, 5, 0, 2).(*mat.Dense), x.Slice(0, 5, 0, 2).(*mat.Dense)), res
	}
	a, res := run()
	b, _ := run()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("two runs with one seed differ: %v vs %v", a, b)
		}
	}
	if res.Dropped != 2 || res.TrainRows+res.ValRows != 298 || res.ValRows != 30 {
		t.Errorf("Dropped %d, %d train + %d validation rows; expected 2 dropped, 268 + 30", res.Dropped, res.TrainRows, res.ValRows)
	}
	if len(res.TrainLoss) != 3 || len(res.ValLoss) != 3 || res.BestEpoch < 1 || res.BestEpoch > 3 {
		t.Errorf("result %+v: expected 3 epochs of losses and a best epoch among them", res)
	}
	if html, _ := res.MIMEBundle()["text/html"].(string); !strings.Contains(html, "<table>") {
		t.Errorf("MIMEBundle HTML %q: expected a table of epochs", html)
	}
}

func TestEarlyStoppingRestoresBest(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 2))
	prior, theta, x := gaussianPairs(rng, 200)
	e := NewNRE(prior, NREConfig{Hidden: []int{64, 64}})
	var last runenv.ProgressEvent
	runenv.SetProgress(func(ev runenv.ProgressEvent) { last = ev })
	defer runenv.SetProgress(nil)
	// A high learning rate on 180 pairs overfits quickly, so validation stops improving.
	res, err := e.Train(theta, x, TrainConfig{Epochs: 300, BatchSize: 20, LearningRate: 1e-2, Patience: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Stopped || res.Epochs != res.BestEpoch+5 {
		t.Fatalf("stopped %v after %d epochs, best %d: expected a stop 5 epochs after the best", res.Stopped, res.Epochs, res.BestEpoch)
	}
	// The progress bar ends as stopped early, at the last epoch run.
	if !last.Finished || !last.Stopped || last.Done != res.Epochs || last.Total != 300 {
		t.Errorf("last progress event %+v, expected a finished, stopped one at epoch %d of 300", last, res.Epochs)
	}
	// The kept weights are the best epoch's: their validation loss is the best loss.
	_, val, _ := splitRows(rand.New(rand.NewPCG(1, 0x7261696e)), 200, 0.1)
	d := &trainData{theta: theta, x: x, thetaZ: e.zt.apply(theta), xZ: e.zx.apply(x)}
	if got, _, _ := evalLoss((*nreModel)(e), d, val, 20, nil, 0); math.Abs(got-res.BestLoss) > 1e-12 {
		t.Errorf("validation loss of the restored weights %v, best recorded %v", got, res.BestLoss)
	}
}

func TestUntrainedRefuses(t *testing.T) {
	prior := dist.NewUniformCube(0, 1, 2)
	for name, p := range map[string]Posterior{"npe": NewNPE(prior, NPEConfig{}).Posterior([]float64{1}), "nre": NewNRE(prior, NREConfig{}).Posterior([]float64{1})} {
		_, err := p.(contextSampler).SampleContext(context.Background(), rand.New(rand.NewPCG(1, 1)), 10)
		if !errors.Is(err, ErrUntrained) || !strings.Contains(err.Error(), "not trained") {
			t.Errorf("%s: SampleContext error %v, expected one that wraps ErrUntrained", name, err)
		}
		func() {
			defer func() {
				r := recover()
				if err, ok := r.(error); !ok || !errors.Is(err, ErrUntrained) || !strings.Contains(err.Error(), "call Train") {
					t.Errorf("%s: Sample panicked with %v, expected an error wrapping ErrUntrained that says to call Train", name, r)
				}
			}()
			p.Sample(rand.New(rand.NewPCG(1, 1)), 10)
		}()
	}
	if _, err := NewNPE(prior, NPEConfig{Flow: "realnvp"}).Train(mat.NewDense(2, 2, nil), mat.NewDense(2, 1, nil), TrainConfig{}); err == nil || !strings.Contains(err.Error(), `"maf" or "nsf"`) {
		t.Errorf("unknown flow: error %v, expected one naming the flows", err)
	}
}

func TestNPELeakageError(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	_, theta, x := gaussianPairs(rng, 300)
	// The flow learns θ spread like N(0, 1) while the prior's box is 0.002 wide: almost every
	// draw leaks out of the support.
	box := dist.NewUniformCube(0, 0.002, 2)
	e := NewNPE(box, NPEConfig{Hidden: 8, Transforms: 1})
	if _, err := e.Train(theta, x, TrainConfig{Epochs: 2, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	p := e.PosteriorAt([]float64{0, 0})
	_, err := p.SampleContext(context.Background(), rng, 100)
	if !errors.Is(err, ErrLowAcceptance) || !strings.Contains(err.Error(), "leaks") {
		t.Fatalf("error %v, expected a leakage error wrapping ErrLowAcceptance", err)
	}
	if r := p.AcceptanceRate(); !(r < MinAcceptanceRate) {
		t.Errorf("acceptance rate %v, expected below %v", r, MinAcceptanceRate)
	}
	if lp := p.LogProb(mat.NewDense(1, 2, []float64{0.5, 0.5})); !math.IsInf(lp[0], -1) {
		t.Errorf("LogProb outside the support = %v, expected −Inf", lp[0])
	}
}

func TestCancelAndProgress(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 3))
	prior, theta, x := gaussianPairs(rng, 300)
	var mu sync.Mutex
	var msgs []string
	runenv.SetProgress(func(ev runenv.ProgressEvent) {
		mu.Lock()
		msgs = append(msgs, ev.Message)
		mu.Unlock()
	})
	defer runenv.SetProgress(nil)
	if _, err := NewNRE(prior, NREConfig{}).Train(theta, x, TrainConfig{Epochs: 2}); err != nil {
		t.Fatal(err)
	}
	if last := msgs[len(msgs)-1]; !strings.Contains(last, "epoch 2") || !strings.Contains(last, "val loss") {
		t.Errorf("last progress message %q, expected epoch 2 with its validation loss", last)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	runenv.SetContext(ctx)
	defer runenv.SetContext(nil)
	_, err := NewNPE(prior, NPEConfig{}).Train(theta, x, TrainConfig{Epochs: 2})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, expected one wrapping context.Canceled", err)
	}
}

func TestSaveLoad(t *testing.T) {
	models, ests, d := testEstimators(t)
	_ = models
	for name, e := range ests {
		var buf bytes.Buffer
		var err error
		var loaded Amortized
		switch e := e.(type) {
		case *NPE:
			err = e.Save(&buf)
			if err == nil {
				loaded, err = LoadNPE(bytes.NewReader(buf.Bytes()), e.prior)
			}
			if _, lerr := LoadNRE(bytes.NewReader(buf.Bytes()), e.prior); lerr == nil || !strings.Contains(lerr.Error(), "LoadNPE") {
				t.Errorf("%s: LoadNRE of an NPE file: %v, expected an error pointing to LoadNPE", name, lerr)
			}
		case *NRE:
			err = e.Save(&buf)
			if err == nil {
				loaded, err = LoadNRE(bytes.NewReader(buf.Bytes()), e.prior)
			}
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		a, b := e.LogProbPairs(d.theta, d.x), loaded.LogProbPairs(d.theta, d.x)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("%s: loaded estimator gives %v at pair %d, the original %v", name, b[i], i, a[i])
			}
		}
		bad := append([]byte(nil), buf.Bytes()...)
		bad[8] = 99 // format version
		if _, err := LoadNPE(bytes.NewReader(bad), dist.NewStandardNormal(2)); err == nil || !strings.Contains(err.Error(), "version 99") {
			t.Errorf("%s: wrong version gives %v, expected an error naming version 99", name, err)
		}
	}
	if _, err := LoadNPE(strings.NewReader("hello"), dist.NewStandardNormal(2)); err == nil || !strings.Contains(err.Error(), "not a gosbi estimator") {
		t.Errorf("garbage gives %v", err)
	}
}

func TestEnsembles(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	prior, theta, x := gaussianPairs(rng, 300)
	var npes []*NPE
	var nres []*NRE
	for k := uint64(0); k < 3; k++ {
		n := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 2})
		r := NewNRE(prior, NREConfig{Hidden: []int{8}})
		if _, err := n.Train(theta, x, TrainConfig{Epochs: 3, Seed: k}); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Train(theta, x, TrainConfig{Epochs: 3, Seed: k}); err != nil {
			t.Fatal(err)
		}
		npes, nres = append(npes, n), append(nres, r)
	}
	ne, err := NewNPEEnsemble(npes...)
	if err != nil {
		t.Fatal(err)
	}
	re, err := NewNREEnsemble(nres...)
	if err != nil {
		t.Fatal(err)
	}
	th, xs := theta.Slice(0, 10, 0, 2).(*mat.Dense), x.Slice(0, 10, 0, 2).(*mat.Dense)
	got, gotR := ne.LogProbPairs(th, xs), re.LogRatio(th, xs)
	for i := range got {
		var q, r float64
		for k := range npes {
			q += math.Exp(npes[k].LogProbPairs(th, xs)[i]) / 3
			r += math.Exp(nres[k].LogRatio(th, xs)[i]) / 3
		}
		if math.Abs(got[i]-math.Log(q)) > 1e-12 || math.Abs(gotR[i]-math.Log(r)) > 1e-12 {
			t.Fatalf("pair %d: mixture %v vs %v, mean ratio %v vs %v", i, got[i], math.Log(q), gotR[i], math.Log(r))
		}
	}
	xo := x.RawRowView(0)
	post := ne.Posterior(xo)
	if lp, want := post.LogProb(th)[3], ne.LogProbPairs(th, rowsOf(x, []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}))[3]; math.Abs(lp-want) > 1e-12 {
		t.Errorf("mixture posterior LogProb %v, LogProbPairs %v", lp, want)
	}
	if s := post.Sample(rng, 50); s.RawMatrix().Rows != 50 {
		t.Errorf("mixture drew %d rows, expected 50", s.RawMatrix().Rows)
	}
	if u := MustNewNPEEnsemble(NewNPE(prior, NPEConfig{})); u.Trained() {
		t.Error("an ensemble of an untrained NPE says it is trained") // Train trains it
	}
	many, err := SampleMany(re, rng, xs, 20)
	if err != nil || len(many) != 10 || many[9].RawMatrix().Rows != 20 {
		t.Fatalf("SampleMany: %v, %d sets", err, len(many))
	}
}

func TestResumeContinuesTraining(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	prior, theta, x := gaussianPairs(rng, 600)
	e := NewNPE(prior, NPEConfig{Hidden: 16, Transforms: 2})
	first, err := e.Train(theta, x, TrainConfig{Epochs: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	zt := e.zt.Mean[0]
	fresh, err := NewNPE(prior, NPEConfig{Hidden: 16, Transforms: 2}).Train(theta, x, TrainConfig{Epochs: 1, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	resumed, err := e.Train(theta, x, TrainConfig{Epochs: 1, Seed: 2, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	// Resuming starts from the trained weights: its first epoch is better than a fresh
	// network's first epoch and close to where the first run ended.
	if !(resumed.ValLoss[0] < fresh.ValLoss[0]) || e.zt.Mean[0] != zt {
		t.Errorf("resumed val loss %.3f, fresh %.3f, first run best %.3f; standardization kept: %v",
			resumed.ValLoss[0], fresh.ValLoss[0], first.BestLoss, e.zt.Mean[0] == zt)
	}
}

// widthEmbedding is an embedding built for observations of one width only, as a user's
// embedding written for a fixed data shape is.
type widthEmbedding struct{ in int }

func (w widthEmbedding) Build(rng *rand.Rand, in int) (EmbeddingNet, error) {
	if in != w.in {
		return nil, fmt.Errorf("width embedding: %d inputs, built for %d", in, w.in)
	}
	return MLPEmbedding{Hidden: []int{4}, Out: 2}.Build(rng, in)
}

// TestFailedRetrainLeavesUntrained trains an estimator, then trains it again from fresh
// weights on wider observations that its embedding refuses: the error must leave it untrained
// (its posteriors refuse to sample), not trained with the new standardization and no network
// for it (its posteriors panicked on the mismatch).
func TestFailedRetrainLeavesUntrained(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	prior, theta, x := gaussianPairs(rng, 200)
	wide := mat.NewDense(200, 3, nil)
	wide.Slice(0, 200, 0, 2).(*mat.Dense).Copy(x)
	for name, e := range map[string]interface {
		Amortized
		Train(theta, x *mat.Dense, cfg TrainConfig) (*TrainResult, error)
		Trained() bool
	}{
		"NPE": NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1, Embedding: widthEmbedding{2}}),
		"NRE": NewNRE(prior, NREConfig{Hidden: []int{8}, Embedding: widthEmbedding{2}}),
	} {
		if _, err := e.Train(theta, x, TrainConfig{Epochs: 1}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := e.Train(theta, wide, TrainConfig{Epochs: 1}); err == nil || !strings.Contains(err.Error(), "built for 2") {
			t.Fatalf("%s: training on 3 data values: error %v, want the embedding's", name, err)
		}
		if e.Trained() {
			t.Errorf("%s: trained after a failed Train from fresh weights", name)
		}
		if _, err := SampleMany(e, rng, x.Slice(0, 1, 0, 2).(*mat.Dense), 10); !errors.Is(err, ErrUntrained) {
			t.Errorf("%s: sampling after a failed Train: error %v, want %v", name, err, ErrUntrained)
		}
	}
}
