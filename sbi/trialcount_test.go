package sbi

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestTrialWarningEmbeddingPaths: Summaries, ToBase and CheckObservation evaluate the set
// embedding on the observation as a posterior does, so at 40 trials, outside the training
// range 1–5, each warns once with its own name, and at 5 trials says nothing. Before, only the
// posterior paths warned. Training, whose reservoir summarizes validation rows of 20 trials
// (outside the range: they are not fitted), warns about none of them.
func TestTrialWarningEmbeddingPaths(t *testing.T) {
	prior, theta, x := trialRangePairs()
	vx := mat.DenseCopyOf(x.Slice(0, 40, 0, 41))
	for i := 0; i < 40; i++ {
		vx.Set(i, 0, 20)
	}
	val := TrainConfig{Epochs: 1, Seed: 3, ValTheta: mat.DenseCopyOf(theta.Slice(0, 40, 0, 1)), ValX: vx}
	npe := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1, Embedding: trialRangeEmbedding})
	nre := NewNRE(prior, NREConfig{Hidden: []int{8}, Embedding: trialRangeEmbedding, Sampler: SamplerConfig{Method: SamplerImportance}})
	fmpe := NewFMPE(prior, FMPEConfig{Hidden: 8, Layers: 1, Embedding: trialRangeEmbedding})
	buf := captureWarnings(t)
	for _, e := range []Estimator{npe, nre, fmpe} {
		if _, err := e.Train(theta, x, val); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Contains(buf.String(), "trials") {
		t.Errorf("training with validation rows of 20 trials warned about them:\n%s", buf)
	}
	th := mat.NewDense(1, 1, []float64{0.2})
	check := func(c interface {
		CheckObservation([]float64) (*ObservationCheck, error)
	}) func(x []float64) {
		return func(x []float64) {
			if _, err := c.CheckObservation(x); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range []struct {
		name string
		call func(x []float64)
	}{
		{"NPE/Summaries", func(x []float64) { npe.Summaries(mat.NewDense(1, len(x), x)) }},
		{"NPE/ToBase", func(x []float64) { npe.ToBase(th, mat.NewDense(1, len(x), x)) }},
		{"NPE/CheckObservation", check(npe)},
		{"NRE/Summaries", func(x []float64) { nre.Summaries(mat.NewDense(1, len(x), x)) }},
		{"NRE/CheckObservation", check(nre)},
		{"FMPE/Summaries", func(x []float64) { fmpe.Summaries(mat.NewDense(1, len(x), x)) }},
	} {
		for _, n := range []int{5, 40} {
			t.Run(fmt.Sprintf("%s/%d", c.name, n), func(t *testing.T) {
				buf := captureWarnings(t)
				c.call(trialRangeObservation(n))
				method := c.name[strings.Index(c.name, "/")+1:]
				want := 0
				if n > 5 {
					want = 1
				}
				got := trialsWarnings(buf.String(), n)
				if got != want || want == 1 && !strings.Contains(buf.String(), fmt.Sprintf(" %s at an observation of %d trials", method, n)) {
					t.Errorf("%d warnings about the number of trials, want %d naming %s; warnings:\n%s", got, want, method, buf)
				}
			})
		}
	}
}

// userSetEmbedding is a set embedding written outside the package's own: observations are
// the count of trials then up to 40 trials of one value (the layout of trialRangeEmbedding),
// summarized by a linear map of the whole row. It reports the count through TrialCounter.
// Zero makes its TrialCount report 0 trials for every row, as a faulty one might.
type userSetEmbedding struct {
	Zero bool
}

// registerUserSet registers userSetEmbedding for the test t only, so that the tests of every
// embedding type the package registers (TestEmbeddingCopyConformance) do not see it.
func registerUserSet(t *testing.T) {
	const kind = "test-user-set"
	RegisterEmbedding(kind, userSetEmbedding{})
	t.Cleanup(func() {
		embeddingKinds.Lock()
		defer embeddingKinds.Unlock()
		delete(embeddingKinds.byType, embeddingKinds.byKind[kind])
		delete(embeddingKinds.byKind, kind)
	})
}

func (u userSetEmbedding) mlp() MLPEmbedding { return MLPEmbedding{Hidden: []int{}, Out: 3} }

func (u userSetEmbedding) Build(rng *rand.Rand, in int) (EmbeddingNet, error) {
	return u.mlp().Build(rng, in)
}

func (u userSetEmbedding) Size(in int) (out, weights int, err error) { return u.mlp().Size(in) }

func (u userSetEmbedding) TrialCount(row []float64) (int, bool) {
	if len(row) == 0 || row[0] != math.Trunc(row[0]) || row[0] < 1 || row[0] > 40 {
		return 0, false
	}
	if u.Zero {
		return 0, true
	}
	return int(row[0]), true
}

// TestTrialCounterUserEmbedding: an embedding of the user's that reports the number of trials
// of a row (TrialCounter) gets its training range recorded, saved and loaded, and a posterior
// or its summaries at 40 trials warn as with DeepSetEmbedding. Before, only DeepSetEmbedding
// could report counts and such an embedding was never checked. One that reports fewer than 1
// trial is refused by training, which would otherwise record a range no file can load.
func TestTrialCounterUserEmbedding(t *testing.T) {
	registerUserSet(t)
	prior, theta, x := trialRangePairs()
	e := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1, Embedding: userSetEmbedding{}})
	e.MustTrain(theta, x, TrainConfig{Epochs: 1, Seed: 3})
	if got := e.trials; got == nil || *got != (trialRange{Min: 1, Max: 5}) {
		t.Fatalf("range %v, want 1–5", got)
	}
	var file bytes.Buffer
	if err := e.Save(&file); err != nil {
		t.Fatal(err)
	}
	back, err := LoadNPE(bytes.NewReader(file.Bytes()), nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, est := range map[string]*NPE{"trained": e, "loaded": back} {
		for _, n := range []int{5, 40} {
			t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
				buf := captureWarnings(t)
				est.Posterior(trialRangeObservation(n))
				est.Summaries(mat.NewDense(1, 41, trialRangeObservation(n)))
				want := 0
				if n > 5 {
					want = 2
				}
				if got := trialsWarnings(buf.String(), n); got != want {
					t.Errorf("%d warnings about the number of trials, want %d; warnings:\n%s", got, want, buf)
				}
			})
		}
	}
	t.Run("damaged range", func(t *testing.T) {
		b := forge(t, file.Bytes(), func(h map[string]any) { h["trials"] = map[string]any{"min": 0, "max": 5} })
		if _, err := Load(bytes.NewReader(b)); err == nil || !strings.Contains(err.Error(), "damaged header") {
			t.Errorf("error %v, expected one saying the header's range of trials is damaged", err)
		}
	})
	for _, train := range []struct {
		name string
		call func(e *NPE) error
	}{
		{"Train", func(e *NPE) error { _, err := e.Train(theta, x, TrainConfig{Epochs: 1, Seed: 3}); return err }},
		{"TrainStream", func(e *NPE) error {
			_, err := e.TrainStream(storeOf(t, theta, x, 64), nil, TrainConfig{Epochs: 1, Seed: 3})
			return err
		}},
	} {
		t.Run("reports 0 trials/"+train.name, func(t *testing.T) {
			bad := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1, Embedding: userSetEmbedding{Zero: true}})
			err := train.call(bad)
			if err == nil || !strings.Contains(err.Error(), "TrialCount") || bad.Trained() {
				t.Errorf("error %v (trained %v), expected training to refuse a TrialCount of 0", err, bad.Trained())
			}
		})
	}
}

// TestTrialRangeResumeUnknown: an estimator loaded from a file of format 2 does not know the
// numbers of trials it was trained on; resumed on sets of 1 to 5 trials it still does not (the
// union of an unknown range with 1–5 is unknown: 1–5 would claim that it was trained on no
// others), so it warns at no number of trials and saves no range.
func TestTrialRangeResumeUnknown(t *testing.T) {
	_, theta, x := trialRangePairs()
	old, err := LoadNPE(bytes.NewReader(savedFile(t, 2, "npe-deepset")), nil)
	if err != nil {
		t.Fatal(err)
	}
	old.MustTrain(theta, x, TrainConfig{Epochs: 1, Seed: 3, Resume: true})
	if old.trials != nil {
		t.Errorf("resumed from a file of format 2: range %v, want unknown", old.trials)
	}
	var file bytes.Buffer
	if err := old.Save(&file); err != nil {
		t.Fatal(err)
	}
	back, err := LoadNPE(bytes.NewReader(file.Bytes()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if back.trials != nil {
		t.Errorf("saved and loaded: range %v, want unknown", back.trials)
	}
	buf := captureWarnings(t)
	back.Posterior(trialRangeObservation(40))
	if strings.Contains(buf.String(), "trials") {
		t.Errorf("a range unknown warned about the number of trials:\n%s", buf)
	}
}
