package sbi

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/dist"
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
