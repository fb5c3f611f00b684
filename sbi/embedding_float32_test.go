package sbi

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestCNNFloat32MatchesFloat64: a CNN embedding with Float32 built from the same seed as
// the float64 one has the same weights and gives the same summaries and gradients (of its
// weights and of its input) up to float32 rounding: relative differences below 1e-4 of each
// result's largest magnitude (float32 carries 6e-8 per operation; the stack sums at most a
// few hundred terms per value), while a weight changed by 1e-3 moves them by more.
func TestCNNFloat32MatchesFloat64(t *testing.T) {
	for _, c := range []struct {
		f64, f32 SavableEmbedding
		in       int
	}{
		{CNN1DEmbedding{Channels: 2}, CNN1DEmbedding{Channels: 2, Float32: true}, 2 * 100},
		{CNN1DEmbedding{Channels: 3, Conv: []int{4, 5}, Kernel: 4, Pool: 1, GlobalPool: true},
			CNN1DEmbedding{Channels: 3, Conv: []int{4, 5}, Kernel: 4, Pool: 1, GlobalPool: true, Float32: true}, 3 * 31},
		{CNN2DEmbedding{Height: 9, Width: 8, Conv: []int{4, 3}}, CNN2DEmbedding{Height: 9, Width: 8, Conv: []int{4, 3}, Float32: true}, 9 * 8},
	} {
		net64, err := c.f64.Build(rand.New(rand.NewPCG(3, 3)), c.in)
		if err != nil {
			t.Fatal(err)
		}
		net32, err := c.f32.Build(rand.New(rand.NewPCG(3, 3)), c.in)
		if err != nil {
			t.Fatal(err)
		}
		const n = 5
		rng := rand.New(rand.NewPCG(4, 4))
		x0 := make([]float64, n*c.in)
		for i := range x0 {
			x0[i] = rng.NormFloat64()
		}
		run := func(net EmbeddingNet) [][]float64 { return embeddingResults(net, x0, n, c.in) }
		worst := func(a, b [][]float64) float64 {
			w := 0.0
			for k := range a {
				scale := 0.0
				for _, v := range b[k] {
					scale = math.Max(scale, math.Abs(v))
				}
				for i := range a[k] {
					w = math.Max(w, math.Abs(a[k][i]-b[k][i])/scale)
				}
			}
			return w
		}
		want, got := run(net64), run(net32)
		if w := worst(got, want); !(w < 1e-4) {
			t.Errorf("%+v: largest relative difference from float64 %.3g, want < 1e-4", c.f32, w)
		}
		net64.Params()[0].Data[0] += 1e-3 // a changed weight is seen
		if w := worst(got, run(net64)); w < 1e-4 {
			t.Errorf("%+v: a weight changed by 1e-3 moves the results by %.3g only, within the tolerance", c.f32, w)
		}
	}
}

// TestCNNFloat32Refused: Float32 with another activation, mean pooling or causal
// convolutions is an error saying what to change, and a Float32 embedding's description
// says its convolutions are float32.
func TestCNNFloat32Refused(t *testing.T) {
	for _, c := range []struct {
		emb  SavableEmbedding
		want string
	}{
		{CNN1DEmbedding{Float32: true, Activation: ELU}, "Activation"},
		{CNN1DEmbedding{Float32: true, Pooling: MeanPooling}, "Pooling"},
		{CNN1DEmbedding{Float32: true, Causal: true}, "Causal"},
		{CNN2DEmbedding{Height: 8, Width: 8, Float32: true, Activation: Tanh}, "Activation"},
	} {
		in := 100
		if _, ok := c.emb.(CNN2DEmbedding); ok {
			in = 64
		}
		if _, err := c.emb.Build(rand.New(rand.NewPCG(1, 1)), in); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "Float32") {
			t.Errorf("%+v: error %v, want one naming Float32 and %s", c.emb, err, c.want)
		}
	}
	d, err := DescribeEmbedding(CNN1DEmbedding{Float32: true}, 100)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Layers[0].Layer, "float32") {
		t.Errorf("first layer described as %q, want it to say float32", d.Layers[0].Layer)
	}
}
