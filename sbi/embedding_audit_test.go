package sbi

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// panicMessage runs f and returns what it panicked with, "" when it returned.
func panicMessage(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}

// TestUnreadableRowsRefused checks the methods that map observations through the embedding
// outside LogProbPairs and the posteriors: Summaries, ToBase and CheckObservation. An
// observation whose count of trials the DeepSet's layout refuses (here 4 of MaxTrials 3)
// would be read with its count clamped, and one holding ±Inf would pass a saturating network
// as a finite summary: both give a value for another observation. Summaries and ToBase must
// panic naming the row and why, CheckObservation must return an error; readable rows keep
// their values.
func TestUnreadableRowsRefused(t *testing.T) {
	emb := DeepSetEmbedding{TrialDim: 1, MaxTrials: 3, Hidden: []int{8}, Features: 4, Head: []int{8}, Out: 2, Activation: Tanh}
	prior := dist.NewNormal([]float64{0}, []float64{1})
	rng := rand.New(rand.NewPCG(6, 7))
	theta, x := trialPairs(prior, rng, 300)
	npe := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1, Embedding: emb})
	if _, err := npe.Train(theta, x, TrainConfig{Epochs: 2, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	th := mat.DenseCopyOf(theta.Slice(0, 4, 0, 1))
	xs := mat.DenseCopyOf(x.Slice(0, 4, 0, 4))
	cleanS, cleanZ := npe.Summaries(xs), npe.ToBase(th, xs)
	for _, c := range []struct {
		name string
		col  int
		v    float64
		want string
	}{
		{"count above MaxTrials", 0, 4, "MaxTrials = 3"},
		{"count 0", 0, 0, "MaxTrials = 3"},
		{"infinite trial", 1, math.Inf(1), "NaN or"},
		{"NaN trial", 1, math.NaN(), "NaN or"},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad := mat.DenseCopyOf(xs)
			bad.Set(2, c.col, c.v)
			for what, f := range map[string]func(){
				"Summaries": func() { npe.Summaries(bad) },
				"ToBase":    func() { npe.ToBase(th, bad) },
			} {
				msg := panicMessage(f)
				if !strings.Contains(msg, "row 2") || !strings.Contains(msg, c.want) {
					t.Errorf("%s: panic %q, want one naming row 2 and %q", what, msg, c.want)
				}
			}
			if _, err := npe.CheckObservation(bad.RawRowView(2)); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("CheckObservation: error %v, want one saying %q", err, c.want)
			}
		})
	}
	if s := npe.Summaries(xs); !mat.Equal(s, cleanS) {
		t.Errorf("Summaries of readable rows changed:\n%v\n%v", mat.Formatted(s), mat.Formatted(cleanS))
	}
	if z := npe.ToBase(th, xs); !mat.Equal(z, cleanZ) {
		t.Errorf("ToBase of readable rows changed")
	}
	if _, err := npe.CheckObservation(xs.RawRowView(2)); err != nil {
		t.Errorf("CheckObservation of a readable observation: %v", err)
	}
}

// nanPadded returns x (trialPairs' layout) with the padding after each row's trials set to
// NaN, as sets of varying size are often padded elsewhere.
func nanPadded(x *mat.Dense) *mat.Dense {
	out := mat.DenseCopyOf(x)
	n, c := out.Dims()
	for i := 0; i < n; i++ {
		for j := 1 + int(out.At(i, 0)); j < c; j++ {
			out.Set(i, j, math.NaN())
		}
	}
	return out
}

// TestDeepSetNaNPadding checks observations of a varying number of trials padded with NaN
// after their trials, where the layout expects finite padding (the count, not NaN, marks the
// trials present). Training dropped the padded rows as failed simulations — every set shorter
// than MaxTrials, a training set biased to full sets, with a warning that blamed the
// simulator — and a posterior refused the observation as non-finite without saying why. Each
// must be an error that names the padding and how to pad; a row whose trial itself holds NaN
// stays a failed simulation, dropped with a count.
func TestDeepSetNaNPadding(t *testing.T) {
	emb := DeepSetEmbedding{TrialDim: 1, MaxTrials: 3, Hidden: []int{8}, Features: 4, Head: []int{8}, Out: 2}
	prior := dist.NewNormal([]float64{0}, []float64{1})
	theta, x := trialPairs(prior, rand.New(rand.NewPCG(6, 8)), 300)
	padded := nanPadded(x)
	const want = "padding"
	for _, c := range []struct {
		name  string
		train func() error
	}{
		{"NPE", func() error {
			_, err := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1, Embedding: emb}).Train(theta, padded, TrainConfig{Epochs: 1, Seed: 1})
			return err
		}},
		{"NRE", func() error {
			_, err := NewNRE(prior, NREConfig{Hidden: []int{8}, Embedding: emb}).Train(theta, padded, TrainConfig{Epochs: 1, Seed: 1})
			return err
		}},
		{"NPE/RefuseNonFinite", func() error {
			_, err := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1, Embedding: emb}).Train(theta, padded, TrainConfig{Epochs: 1, Seed: 1, RefuseNonFinite: true})
			return err
		}},
		{"NPE/ValX", func() error {
			vt, vx := theta.Slice(200, 300, 0, 1).(*mat.Dense), padded.Slice(200, 300, 0, 4).(*mat.Dense)
			_, err := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1, Embedding: emb}).Train(theta.Slice(0, 200, 0, 1).(*mat.Dense), x.Slice(0, 200, 0, 4).(*mat.Dense), TrainConfig{Epochs: 1, Seed: 1, ValTheta: vt, ValX: vx})
			return err
		}},
		{"NPE/TrainStream", func() error {
			_, err := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1, Embedding: emb}).TrainStream(storeOf(t, theta, padded, 64), nil, TrainConfig{Epochs: 1, Seed: 1})
			return err
		}},
		{"NPE/TrainStream validation", func() error {
			_, err := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1, Embedding: emb}).TrainStream(storeOf(t, theta, x, 64), storeOf(t, theta, padded, 64), TrainConfig{Epochs: 1, Seed: 1})
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := c.train(); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("training on NaN-padded sets: error %v, want one about the %s", err, want)
			}
		})
	}
	t.Run("observation", func(t *testing.T) {
		npe := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1, Embedding: emb})
		failed := mat.DenseCopyOf(x)
		failed.Set(3, 1, math.NaN()) // a trial that failed: a pair to drop
		res, err := npe.Train(theta, failed, TrainConfig{Epochs: 1, Seed: 1})
		if err != nil || res.Dropped != 1 {
			t.Fatalf("a NaN trial: result %v, error %v; want one pair dropped", res, err)
		}
		xo := padded.RawRowView(0) // one trial, NaN after it
		if _, err := npe.PosteriorAt(xo).SampleChecked(rand.New(rand.NewPCG(1, 1)), 2); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("posterior at a NaN-padded observation: error %v, want one about the %s", err, want)
		}
		if _, err := npe.CheckObservation(xo); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckObservation of a NaN-padded observation: error %v, want one about the %s", err, want)
		}
	})
}

// TestDeepSetPackNil checks that Pack and WithCounts given a nil matrix (a simulation whose
// error went unread) return an error saying what was expected, where they panicked with a nil
// dereference.
func TestDeepSetPackNil(t *testing.T) {
	var none *mat.Dense
	for _, c := range []struct {
		name string
		call func() error
	}{
		{"Pack", func() error { _, err := DeepSetEmbedding{TrialDim: 2, MaxTrials: 3}.Pack(none); return err }},
		{"Pack/fixed", func() error { _, err := DeepSetEmbedding{TrialDim: 2}.Pack(none); return err }},
		{"WithCounts", func() error {
			_, err := DeepSetEmbedding{TrialDim: 2, MaxTrials: 3}.WithCounts(none, []int{1})
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			if msg := panicMessage(func() { err = c.call() }); msg != "" {
				t.Fatalf("panicked: %s", msg)
			}
			if err == nil || !strings.Contains(err.Error(), "nil") {
				t.Errorf("error %v, want one saying the matrix is nil", err)
			}
		})
	}
}

// TestPosteriorWidthSaysLayout checks the panic of a posterior asked with an observation of
// another width than the estimator was trained on, where the embedding reads a structure: it
// must say what the embedding reads (a set of how many trials, a series of how many
// positions and channels) and, for a fixed number of trials, how to ask with another number,
// not only the two widths.
func TestPosteriorWidthSaysLayout(t *testing.T) {
	prior := dist.NewNormal([]float64{0}, []float64{1})
	for _, c := range []struct {
		name string
		emb  Embedding
		in   int
		want []string
	}{
		{"deepset fixed", DeepSetEmbedding{TrialDim: 2, Hidden: []int{4}, Features: 3, Head: []int{}, Out: 2}, 10, []string{"5 trials of 2 values", "MaxTrials"}},
		{"deepset varying", DeepSetEmbedding{TrialDim: 1, MaxTrials: 4, Hidden: []int{4}, Features: 3, Head: []int{}, Out: 2}, 5, []string{"up to 4 trials", "Pack"}},
		{"cnn1d", CNN1DEmbedding{Channels: 2, Conv: []int{2}, Kernel: 3, Hidden: []int{}, Out: 2}, 12, []string{"6 positions × 2 channels", "channels-last"}},
		{"gru", GRUEmbedding{Hidden: 3, Out: 2}, 6, []string{"6 positions × 1 channel", "channels-last"}},
		{"cnn2d", CNN2DEmbedding{Height: 2, Width: 3, Conv: []int{2}, Pool: 1, Hidden: []int{}, Out: 2}, 12, []string{"2×3 pixels × 2 channels", "channels-last"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(2, 3))
			theta := prior.Sample(rng, 60)
			x := mat.NewDense(60, c.in, nil)
			for i := 0; i < 60; i++ {
				for j := 0; j < c.in; j++ {
					x.Set(i, j, theta.At(i, 0)+rng.NormFloat64())
				}
			}
			if d, ok := c.emb.(DeepSetEmbedding); ok && d.MaxTrials > 0 {
				counts := make([]int, 60)
				for i := range counts {
					counts[i] = 1 + i%d.MaxTrials
				}
				x = d.MustWithCounts(x.Slice(0, 60, 0, c.in-1).(*mat.Dense), counts)
			}
			for name, e := range map[string]Estimator{
				"NPE":  NewNPE(prior, NPEConfig{Hidden: 4, Transforms: 1, Embedding: c.emb}),
				"NRE":  NewNRE(prior, NREConfig{Hidden: []int{4}, Embedding: c.emb}),
				"FMPE": NewFMPE(prior, FMPEConfig{Hidden: 4, Layers: 1, Embedding: c.emb}),
			} {
				if _, err := e.Train(theta, x, TrainConfig{Epochs: 1, Seed: 1}); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				msg := panicMessage(func() { e.Posterior(make([]float64, c.in+2)) })
				for _, w := range c.want {
					if !strings.Contains(msg, w) {
						t.Errorf("%s: panic %q, want it to say %q", name, msg, w)
					}
				}
			}
		})
	}
}

// wrongOut is an embedding of another package whose network returns more summaries than its
// Out says (Forward and Out disagree), or, with fail set, whose Forward panics.
type wrongOut struct{ fail bool }

func (w wrongOut) Build(rng *rand.Rand, in int) (EmbeddingNet, error) {
	return wrongOutNet{m: nn.NewMLP(rng, []int{in, 5}, nn.ReLU), fail: w.fail}, nil
}

type wrongOutNet struct {
	m    *nn.MLP
	fail bool
}

func (n wrongOutNet) Forward(tp *nn.Tape, x *nn.Tensor) *nn.Tensor {
	if n.fail {
		panic("wrongOut: cannot read x")
	}
	return n.m.Forward(tp, x)
}
func (n wrongOutNet) Params() []*nn.Param { return n.m.Params() }
func (n wrongOutNet) Out() int            { return 3 }

// TestEmbeddingOutMismatch checks an embedding of another package whose network's Forward
// gives another width than its Out (or panics): Train and TrainStream panicked with the
// flow's "context Tensor(180×5), want 180×3", naming neither the embedding nor the cause;
// they must return an error naming the embedding's type and both widths (or its panic). NLE
// embeds θ with it, and must do the same.
func TestEmbeddingOutMismatch(t *testing.T) {
	prior := dist.NewNormal([]float64{0}, []float64{1})
	theta, x := trialPairs(prior, rand.New(rand.NewPCG(1, 2)), 200)
	for _, c := range []struct {
		name  string
		want  []string
		train func() (*TrainResult, error)
	}{
		{"NPE", []string{"wrongOut", "5 columns", "Out() = 3"}, func() (*TrainResult, error) {
			return NewNPE(prior, NPEConfig{Hidden: 4, Transforms: 1, Embedding: wrongOut{}}).Train(theta, x, TrainConfig{Epochs: 1})
		}},
		{"NRE", []string{"wrongOut", "5 columns", "Out() = 3"}, func() (*TrainResult, error) {
			return NewNRE(prior, NREConfig{Hidden: []int{4}, Embedding: wrongOut{}}).Train(theta, x, TrainConfig{Epochs: 1})
		}},
		{"FMPE", []string{"wrongOut", "5 columns", "Out() = 3"}, func() (*TrainResult, error) {
			return NewFMPE(prior, FMPEConfig{Hidden: 4, Layers: 1, Embedding: wrongOut{}}).Train(theta, x, TrainConfig{Epochs: 1})
		}},
		{"NPE/TrainStream", []string{"wrongOut", "5 columns", "Out() = 3"}, func() (*TrainResult, error) {
			return NewNPE(prior, NPEConfig{Hidden: 4, Transforms: 1, Embedding: wrongOut{}}).TrainStream(storeOf(t, theta, x, 64), nil, TrainConfig{Epochs: 1})
		}},
		{"NPE/Forward panics", []string{"wrongOut", "cannot read x"}, func() (*TrainResult, error) {
			return NewNPE(prior, NPEConfig{Hidden: 4, Transforms: 1, Embedding: wrongOut{fail: true}}).Train(theta, x, TrainConfig{Epochs: 1})
		}},
		{"NLE", []string{"wrongOut", "5 columns", "Out() = 3"}, func() (*TrainResult, error) {
			return NewNLE(prior, NLEConfig{Hidden: 4, Transforms: 1, Embedding: wrongOut{}}).Train(theta, x, TrainConfig{Epochs: 1})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			if msg := panicMessage(func() { _, err = c.train() }); msg != "" {
				t.Fatalf("Train panicked: %s", msg)
			}
			for _, w := range c.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("error %v, want one saying %q", err, w)
				}
			}
		})
	}
}
