package sbi

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/dist"
	"gonum.org/v1/gonum/mat"
)

// nleEmbeddingData is a small linear-Gaussian training set: x = θ + noise, θ ∈ [−1, 1]³.
func nleEmbeddingData(n int) (dist.Distribution, *mat.Dense, *mat.Dense) {
	prior := dist.NewUniformCube(-1, 1, 3)
	rng := rand.New(rand.NewPCG(5, 6))
	theta := prior.Sample(rng, n)
	x := mat.NewDense(n, 3, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < 3; j++ {
			x.Set(i, j, theta.At(i, j)+0.3*rng.NormFloat64())
		}
	}
	return prior, theta, x
}

// TestNLEEmbeddingOfTheta checks that NLEConfig.Embedding embeds θ: the flow is conditioned
// on the embedding's Out values, its weights are trained (they move from their start) and
// saved (a loaded NLE has the embedding and gives the same log-likelihoods).
func TestNLEEmbeddingOfTheta(t *testing.T) {
	prior, theta, x := nleEmbeddingData(600)
	emb := MLPEmbedding{Hidden: []int{16}, Out: 5}
	e := NewNLE(prior, NLEConfig{Hidden: 16, Transforms: 2, Embedding: emb})
	if _, err := e.Train(theta, x, TrainConfig{Epochs: 1, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	if e.temb == nil || e.temb.Out() != 5 {
		t.Fatalf("the embedding of θ was not built with 5 outputs: %v", e.temb)
	}
	start := append([]float64(nil), e.temb.Params()[0].Data...)
	if _, err := e.Train(theta, x, TrainConfig{Epochs: 2, Seed: 3, Resume: true}); err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(start, e.temb.Params()[0].Data) {
		t.Error("training did not change the embedding's first weights: it is not trained with the flow")
	}
	var buf bytes.Buffer
	if err := e.Save(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"embedding":{"kind":"mlp"`) {
		t.Errorf("the file's header does not hold the embedding of θ")
	}
	back, err := LoadNLE(&buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := back.Config().Embedding.(MLPEmbedding); !ok || got.Out != 5 {
		t.Fatalf("loaded embedding %#v, want the MLPEmbedding with Out 5", back.Config().Embedding)
	}
	a, b := e.LogLikelihood(theta, x), back.LogLikelihood(theta, x)
	if !reflect.DeepEqual(a, b) {
		t.Error("the loaded NLE gives other log-likelihoods")
	}
}

// TestNLEEmbeddingRefused checks that embeddings that do not take a flat θ are refused with
// an error naming the problem, at Train and at load.
func TestNLEEmbeddingRefused(t *testing.T) {
	prior, theta, x := nleEmbeddingData(100)
	for _, c := range []struct {
		emb  Embedding
		want string
	}{
		{CNN1DEmbedding{Channels: 1}, "flat vector of 3 parameters"},
		{DeepSetEmbedding{TrialDim: 3}, "flat vector of 3 parameters"},
		{MLPEmbedding{Out: -1}, "cannot take θ of 3 parameters"},
	} {
		_, err := NewNLE(prior, NLEConfig{Embedding: c.emb}).Train(theta, x, TrainConfig{Epochs: 1})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%T: error %v, want one saying %q", c.emb, err, c.want)
		}
	}
}
