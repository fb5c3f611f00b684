package sbi

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// Sizes whose products wrap round an int, 64 or 32 bits: halfWord² is 0, 3·wraps3To5 is 5 and
// 5·wraps5To64 is 64 (MaxUint/3 and MaxUint/5 are exact, MaxUint being 2⁶⁴ − 1 or 2³² − 1).
const (
	halfWord   = 1 << (bits.UintSize / 2)
	wraps3To5  = math.MaxUint/3 + 2
	wraps5To64 = math.MaxUint/5 + 13
)

// embeddingCases are embeddings of this package with an input size they fit.
var embeddingCases = []struct {
	name string
	emb  SavableEmbedding
	in   int
}{
	{"mlp", MLPEmbedding{Hidden: []int{7, 5}, Out: 3}, 11},
	{"cnn1d", CNN1DEmbedding{}, 100},
	{"cnn1d/channels", CNN1DEmbedding{Channels: 2, Conv: []int{4, 5, 6}, Kernel: 4, Pool: 2, Hidden: []int{}, Out: 3}, 2 * 37},
	{"cnn1d/causal", CNN1DEmbedding{Channels: 3, Conv: []int{4, 4, 4}, Kernel: 2, Causal: true, Pool: 1, GlobalPool: true, Out: 5}, 3 * 20},
	{"cnn2d", CNN2DEmbedding{}, 64},
	{"cnn2d/rect", CNN2DEmbedding{Height: 5, Width: 7, Channels: 2, Conv: []int{3}, Kernel: 5, Pool: 2, Hidden: []int{9, 4}, Out: 2}, 70},
	{"cnn2d/global", CNN2DEmbedding{Height: 4, Width: 4, Conv: []int{3, 5}, Pool: 1, GlobalPool: true, Out: 2}, 16 * 3},
	{"deepset", DeepSetEmbedding{TrialDim: 3}, 12},
	{"deepset/ragged", DeepSetEmbedding{TrialDim: 2, MaxTrials: 5, Hidden: []int{}, Features: 4, Pool: MaxPooling, Head: []int{6, 6}, Out: 3}, 11},
	{"deepset/sum", DeepSetEmbedding{Pool: SumPooling, Out: 2}, 9},
	{"gru", GRUEmbedding{}, 30},
	{"gru/channels", GRUEmbedding{Channels: 2, Hidden: 5, Out: 3}, 14},
}

// TestEmbeddingSize checks that Size, DescribeEmbedding and Build agree on the summary size
// and the number of weights: loading bounds a file's networks by Size before it builds them.
func TestEmbeddingSize(t *testing.T) {
	for _, c := range embeddingCases {
		t.Run(c.name, func(t *testing.T) {
			out, w, err := c.emb.Size(c.in)
			if err != nil {
				t.Fatalf("Size(%d): %v", c.in, err)
			}
			net, err := c.emb.Build(rand.New(rand.NewPCG(1, 1)), c.in)
			if err != nil {
				t.Fatalf("Build(%d): %v", c.in, err)
			}
			if net.Out() != out || nn.NumParams(net.Params()) != w {
				t.Errorf("Size: %d summaries, %d weights; Build: %d summaries, %d weights", out, w, net.Out(), nn.NumParams(net.Params()))
			}
			s, err := DescribeEmbedding(c.emb, c.in)
			if err != nil {
				t.Fatal(err)
			}
			if s.Out != out || s.Weights != w || s.In != c.in {
				t.Errorf("DescribeEmbedding: %d → %d with %d weights, Size %d with %d", s.In, s.Out, s.Weights, out, w)
			}
			if !strings.HasPrefix(c.name, s.Kind) {
				t.Errorf("DescribeEmbedding: kind %q for %s", s.Kind, c.name)
			}
			tp := nn.NewTape()
			x := tp.New(3, c.in)
			for i := range x.Data {
				x.Data[i] = math.Sin(float64(i))
			}
			if l, ok := c.emb.(DeepSetEmbedding); ok && l.MaxTrials > 0 {
				x.Data[0], x.Data[c.in], x.Data[2*c.in] = 1, 3, float64(l.MaxTrials)
			}
			if y := net.Forward(tp, x); y.Rows != 3 || y.Cols != out || !y.AllFinite() {
				t.Errorf("Forward: %d×%d (finite: %v), want 3×%d finite", y.Rows, y.Cols, y.AllFinite(), out)
			}
			names := map[string]bool{}
			for _, p := range net.Params() {
				if names[p.Name] || !strings.HasPrefix(p.Name, "embed.") {
					t.Errorf("parameter %q: duplicate or without the prefix embed.", p.Name)
				}
				names[p.Name] = true
			}
		})
	}
}

// TestEmbeddingRefusesBadShapes checks that a configuration that does not fit the input gives
// an error from Build, Size and InputGroups alike, saying what was expected.
func TestEmbeddingRefusesBadShapes(t *testing.T) {
	cases := []struct {
		name string
		emb  SavableEmbedding
		in   int
		want string
	}{
		{"cnn1d/channels", CNN1DEmbedding{Channels: 3}, 10, "multiple of Channels"},
		{"cnn1d/short", CNN1DEmbedding{Conv: []int{4, 4, 4}}, 6, "fewer than the pooling width"},
		{"cnn1d/noconv", CNN1DEmbedding{Conv: []int{}}, 10, "at least one"},
		{"cnn1d/width", CNN1DEmbedding{Conv: []int{4, 0}}, 10, "every width ≥ 1"},
		{"cnn1d/act", CNN1DEmbedding{Activation: "swishy"}, 10, "swishy"},
		{"cnn1d/causal", CNN1DEmbedding{Conv: make([]int, 30), Causal: true}, 10, "at most 24"},
		{"cnn1d/kernel-overflow", CNN1DEmbedding{Kernel: math.MaxInt}, 10, "Kernel"},
		{"cnn1d/causal-kernel-overflow", CNN1DEmbedding{Conv: []int{2, 2}, Kernel: math.MaxInt/2 + 1, Causal: true, Pool: 1}, 10, "Kernel"},
		{"cnn2d/square", CNN2DEmbedding{}, 10, "square"},
		{"cnn2d/kernel-overflow", CNN2DEmbedding{Kernel: math.MaxInt}, 9, "Kernel"},
		{"cnn2d/kernel-taps-overflow", CNN2DEmbedding{Kernel: halfWord}, 9, "Kernel"},
		{"cnn2d/shape", CNN2DEmbedding{Height: 3, Width: 3, Channels: 2}, 20, "product is 20"},
		{"cnn2d/pool", CNN2DEmbedding{Height: 3, Width: 3, Conv: []int{2, 2}}, 9, "pooling window"},
		{"cnn2d/pixels-overflow", CNN2DEmbedding{Height: halfWord, Width: halfWord}, 64, "product is 64"},
		{"cnn2d/size-overflow", CNN2DEmbedding{Height: 5, Width: wraps5To64, Channels: 1, GlobalPool: true}, 64, "product is 64"},
		{"deepset/trial", DeepSetEmbedding{TrialDim: 4}, 10, "multiple of TrialDim"},
		{"deepset/ragged", DeepSetEmbedding{TrialDim: 2, MaxTrials: 4}, 8, "1 + MaxTrials·TrialDim = 9"},
		{"deepset/pool", DeepSetEmbedding{Pool: "median"}, 4, "median"},
		{"deepset/width-overflow", DeepSetEmbedding{TrialDim: wraps3To5, MaxTrials: 3}, 6, "1 + MaxTrials·TrialDim"},
		{"gru/channels", GRUEmbedding{Channels: 4}, 6, "multiple of Channels"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, errB := c.emb.Build(rand.New(rand.NewPCG(1, 1)), c.in)
			_, _, errS := c.emb.Size(c.in)
			_, errG := c.emb.(InputLayout).InputGroups(c.in)
			for _, err := range []error{errB, errS, errG} {
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("error %v, want one saying %q", err, c.want)
				}
			}
		})
	}
}

// TestDeepSetInvariance checks the set embedding's defining properties on a built network:
// permuting the trials of an observation leaves its summaries unchanged (to rounding: the
// pooling adds in another order), the padding after the counted trials is ignored, and a
// ragged observation of k trials gives the summaries that the fixed-size layout gives to the
// same k trials with the same weights.
func TestDeepSetInvariance(t *testing.T) {
	for _, pool := range []Pooling{MeanPooling, SumPooling, MaxPooling} {
		t.Run(string(pool), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 4))
			ragged := DeepSetEmbedding{TrialDim: 2, MaxTrials: 6, Pool: pool, Hidden: []int{8}, Features: 5, Head: []int{7}, Out: 3}
			net, err := ragged.Build(rng, 13)
			if err != nil {
				t.Fatal(err)
			}
			trials := make([]float64, 12)
			for i := range trials {
				trials[i] = rng.NormFloat64()
			}
			row := func(k int, perm []int, pad float64) []float64 {
				r := []float64{float64(k)}
				for _, p := range perm {
					r = append(r, trials[2*p:2*p+2]...)
				}
				for len(r) < 13 {
					r = append(r, pad)
				}
				return r
			}
			eval := func(net EmbeddingNet, rows ...[]float64) [][]float64 {
				tp := nn.NewTape()
				x := tp.New(len(rows), len(rows[0]))
				for i, r := range rows {
					copy(x.Row(i), r)
				}
				y := net.Forward(tp, x)
				out := make([][]float64, len(rows))
				for i := range rows {
					out[i] = append([]float64(nil), y.Row(i)...)
				}
				return out
			}
			got := eval(net, row(4, []int{0, 1, 2, 3}, 0), row(4, []int{2, 0, 3, 1}, 0), row(4, []int{0, 1, 2, 3}, 1e6), row(6, []int{0, 1, 2, 3, 4, 5}, 0))
			for j := range got[0] {
				if d := math.Abs(got[1][j] - got[0][j]); d > 1e-12 {
					t.Errorf("summary %d: %v with the trials permuted, %v before", j, got[1][j], got[0][j])
				}
				if got[2][j] != got[0][j] {
					t.Errorf("summary %d: %v with other padding, %v before", j, got[2][j], got[0][j])
				}
				if got[3][j] == got[0][j] {
					t.Errorf("summary %d: the same for 4 and 6 trials (%v): the count is not read", j, got[0][j])
				}
			}
			fixed := ragged
			fixed.MaxTrials = 0
			fnet, err := fixed.Build(rng, 8)
			if err != nil {
				t.Fatal(err)
			}
			if err := nn.CopyParams(fnet.Params(), net.Params()); err != nil {
				t.Fatal(err)
			}
			want := eval(fnet, trials[:8])
			for j := range want[0] {
				if math.Abs(want[0][j]-got[0][j]) > 1e-12 {
					t.Errorf("summary %d: %v for 4 of 6 trial slots, %v for 4 trials in the fixed layout", j, got[0][j], want[0][j])
				}
			}
		})
	}
}

// TestEmbeddingGradients checks the backward pass of whole embedding networks with respect to
// their weights, against finite differences: the wiring of the layers (the gathering of the
// trials of a set, the flattening of feature maps) on top of the gradient-checked operations.
func TestEmbeddingGradients(t *testing.T) {
	cases := []struct {
		emb SavableEmbedding
		in  int
		x   func(i, j int) float64
	}{
		{CNN1DEmbedding{Channels: 2, Conv: []int{3, 2}, Kernel: 3, Hidden: []int{4}, Out: 2, Activation: Tanh}, 2 * 9, nil},
		{CNN1DEmbedding{Conv: []int{3}, Kernel: 2, Causal: true, GlobalPool: true, Out: 2, Activation: Tanh}, 7, nil},
		{CNN2DEmbedding{Height: 4, Width: 3, Conv: []int{2}, Hidden: []int{3}, Out: 2, Activation: Tanh}, 12, nil},
		{DeepSetEmbedding{TrialDim: 2, MaxTrials: 3, Hidden: []int{4}, Features: 3, Head: []int{3}, Out: 2, Activation: Tanh}, 7,
			func(i, j int) float64 {
				if j == 0 {
					return float64(1 + i%3)
				}
				return math.Sin(float64(7*i + j))
			}},
		{GRUEmbedding{Channels: 2, Hidden: 3, Out: 2}, 8, nil},
	}
	for _, c := range cases {
		net, err := c.emb.Build(rand.New(rand.NewPCG(2, 2)), c.in)
		if err != nil {
			t.Fatal(err)
		}
		x := nn.NewTensor(4, c.in, nil)
		for i := 0; i < 4; i++ {
			for j := 0; j < c.in; j++ {
				if c.x != nil {
					x.Data[i*c.in+j] = c.x(i, j)
				} else {
					x.Data[i*c.in+j] = math.Sin(float64(5*i + 3*j))
				}
			}
		}
		ps := net.Params()
		inputs := []*nn.Tensor{x}
		for _, p := range ps {
			inputs = append(inputs, p.Tensor)
		}
		errs, err := nn.GradientError(inputs, func(tp *nn.Tape, in []*nn.Tensor) *nn.Tensor {
			saved := make([]*nn.Tensor, len(ps))
			for k, p := range ps {
				saved[k], p.Tensor = p.Tensor, in[k+1]
			}
			defer func() {
				for k, p := range ps {
					p.Tensor = saved[k]
				}
			}()
			return net.Forward(tp, in[0])
		}, 1e-5, 3)
		if err != nil {
			t.Fatal(err)
		}
		for k, e := range errs[1:] {
			if e > 1e-6 {
				t.Errorf("%T: gradient of %s: relative error %.2g", c.emb, ps[k].Name, e)
			}
		}
	}
}

// TestInputLayoutStandardization checks the standardization by groups against its
// definition: for a ragged set, each coordinate's mean and sample deviation over the trials
// present (the padding, here huge, left out) and the count unscaled; for a series, one mean
// and deviation per channel over all positions.
func TestInputLayoutStandardization(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	set := DeepSetEmbedding{TrialDim: 2, MaxTrials: 3}
	x := mat.NewDense(50, 7, nil)
	var vals [2][]float64
	for i := 0; i < 50; i++ {
		k := 1 + rng.IntN(3)
		row := x.RawRowView(i)
		row[0] = float64(k)
		for j := 1; j < 7; j++ {
			row[j] = 1e9 // padding
		}
		for s := 0; s < k; s++ {
			for c := 0; c < 2; c++ {
				v := float64(c*10) + rng.NormFloat64()*float64(c+1)
				row[1+2*s+c] = v
				vals[c] = append(vals[c], v)
			}
		}
	}
	idx := make([]int, 50)
	for i := range idx {
		idx[i] = i
	}
	z, err := fitXScore(set, x, idx)
	if err != nil {
		t.Fatal(err)
	}
	if z.Mean[0] != 0 || z.Std[0] != 1 {
		t.Errorf("the count is standardized with mean %v, deviation %v; want it left as it is", z.Mean[0], z.Std[0])
	}
	for c := 0; c < 2; c++ {
		m, s := valuesMeanStd(vals[c])
		for slot := 0; slot < 3; slot++ {
			j := 1 + 2*slot + c
			if math.Abs(z.Mean[j]-m) > 1e-12*math.Max(1, math.Abs(m)) || math.Abs(z.Std[j]/s-1) > 1e-12 {
				t.Errorf("column %d (coordinate %d): mean %v, deviation %v; want %v and %v over the trials present", j, c, z.Mean[j], z.Std[j], m, s)
			}
		}
	}
	series := CNN1DEmbedding{Channels: 2, Conv: []int{2}, Pool: 1}
	xs := mat.NewDense(20, 10, nil)
	var ch [2][]float64
	for i := 0; i < 20; i++ {
		for j := 0; j < 10; j++ {
			v := rng.NormFloat64() + float64(j) // positions differ: a per-column scale would differ too
			xs.Set(i, j, v)
			ch[j%2] = append(ch[j%2], v)
		}
	}
	z, err = fitXScore(series, xs, idx[:20])
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < 10; j++ {
		m, s := valuesMeanStd(ch[j%2])
		if math.Abs(z.Mean[j]-m) > 1e-12*math.Max(1, math.Abs(m)) || math.Abs(z.Std[j]/s-1) > 1e-12 {
			t.Errorf("series column %d: mean %v, deviation %v; want channel %d's %v and %v", j, z.Mean[j], z.Std[j], j%2, m, s)
		}
	}
}

// TestIndependentScaling checks that a CNN with IndependentScaling standardizes x column by
// column, as without an embedding.
func TestIndependentScaling(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	x := mat.NewDense(30, 8, nil)
	for i := 0; i < 30; i++ {
		for j := 0; j < 8; j++ {
			x.Set(i, j, float64(j*j)+rng.NormFloat64()*float64(j+1))
		}
	}
	idx := make([]int, 30)
	for i := range idx {
		idx[i] = i
	}
	got, err := fitXScore(CNN1DEmbedding{Channels: 2, Conv: []int{2}, Pool: 1, IndependentScaling: true}, x, idx)
	if err != nil {
		t.Fatal(err)
	}
	want, err := fitZScore("x", x, idx)
	if err != nil {
		t.Fatal(err)
	}
	for j := range want.Mean {
		if math.Abs(got.Mean[j]-want.Mean[j]) > 1e-12*math.Max(1, math.Abs(want.Mean[j])) || math.Abs(got.Std[j]/want.Std[j]-1) > 1e-12 {
			t.Errorf("column %d: mean %v, deviation %v; column by column %v and %v", j, got.Mean[j], got.Std[j], want.Mean[j], want.Std[j])
		}
	}
}

func valuesMeanStd(v []float64) (m, s float64) {
	for _, x := range v {
		m += x / float64(len(v))
	}
	for _, x := range v {
		s += (x - m) * (x - m) / float64(len(v)-1)
	}
	return m, math.Sqrt(s)
}

// trialPairs draws n pairs for a DeepSet of TrialDim 1 and MaxTrials 3: θ from prior, and in
// row i of x the count 1 + i%3 followed by that many trials θ + N(0, 1) (zeros after them).
func trialPairs(prior dist.Distribution, rng *rand.Rand, n int) (theta, x *mat.Dense) {
	theta = prior.Sample(rng, n)
	x = mat.NewDense(n, 4, nil)
	for i := 0; i < n; i++ {
		k := 1 + i%3
		x.Set(i, 0, float64(k))
		for s := 0; s < k; s++ {
			x.Set(i, 1+s, theta.At(i, 0)+rng.NormFloat64())
		}
	}
	return theta, x
}

// TestDeepSetRefusesBadCounts checks what happens to an observation whose count of trials is
// not a whole number from 1 to MaxTrials: training fails naming the row, LogProbPairs gives
// −Inf to that pair alone, and its posterior refuses to sample.
func TestDeepSetRefusesBadCounts(t *testing.T) {
	emb := DeepSetEmbedding{TrialDim: 1, MaxTrials: 3, Hidden: []int{8}, Features: 4, Head: []int{8}, Out: 2}
	prior := dist.NewNormal([]float64{0}, []float64{1})
	rng := rand.New(rand.NewPCG(6, 6))
	n := 200
	theta, x := trialPairs(prior, rng, n)
	npe := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1, Embedding: emb})
	bad := mat.DenseCopyOf(x)
	bad.Set(17, 0, 2.5)
	if _, err := npe.Train(theta, bad, TrainConfig{Epochs: 1, Seed: 1}); err == nil || !strings.Contains(err.Error(), "row 17") {
		t.Fatalf("training with a count of 2.5 in row 17: error %v, want one naming row 17", err)
	}
	if _, err := npe.Train(theta, x, TrainConfig{Epochs: 2, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	th := theta.Slice(0, 6, 0, 1).(*mat.Dense)
	xs := mat.DenseCopyOf(x.Slice(0, 6, 0, 4))
	clean := npe.LogProbPairs(th, xs)
	for i, v := range []float64{0, 4, -1} {
		xs.Set(i, 0, v)
	}
	got := npe.LogProbPairs(th, xs)
	for i := range got {
		if want := clean[i]; i < 3 && !math.IsInf(got[i], -1) || i >= 3 && got[i] != want {
			t.Errorf("pair %d (count %v): LogProbPairs %v, clean %v", i, xs.At(i, 0), got[i], clean[i])
		}
	}
	if _, err := npe.PosteriorAt(xs.RawRowView(1)).SampleChecked(rng, 5); err == nil || !strings.Contains(err.Error(), "MaxTrials = 3") {
		t.Errorf("sampling at a count of 4: error %v, want one naming MaxTrials", err)
	}
	var buf bytes.Buffer
	if err := npe.Save(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := LoadNPE(&buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again := back.LogProbPairs(th, xs); !equalOrBothNegInf(again, got) {
		t.Errorf("after a round trip LogProbPairs gives %v, before %v", again, got)
	}
}

// TestBadCountsEveryEstimator checks that every estimator with an embedding reads an
// observation as NPE does (TestDeepSetRefusesBadCounts): an observation whose count of trials
// the DeepSet's layout refuses (0, more than MaxTrials, −1) gets −Inf from LogProbPairs, a
// posterior that refuses to sample with an error naming MaxTrials, and so does a posterior of
// i.i.d. trials holding such an observation; the other pairs keep their values.
func TestBadCountsEveryEstimator(t *testing.T) {
	emb := DeepSetEmbedding{TrialDim: 1, MaxTrials: 3, Hidden: []int{8}, Features: 4, Head: []int{8}, Out: 2}
	prior := dist.NewUniformCube(-3, 3, 1)
	rng := rand.New(rand.NewPCG(8, 8))
	n := 200
	theta, x := trialPairs(prior, rng, n)
	few := SamplerConfig{Method: SamplerImportance, Proposals: 5}
	for _, c := range []struct {
		name string
		est  Estimator
	}{
		{"NPE", NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1, Embedding: emb})},
		{"FMPE", NewFMPE(prior, FMPEConfig{Hidden: 6, Layers: 2, RelTol: 1e-3, AbsTol: 1e-4, Embedding: emb})},
		{"NRE", NewNRE(prior, NREConfig{Hidden: []int{8}, Embedding: emb, Sampler: few})},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := c.est.Train(theta, x, TrainConfig{Epochs: 2, Seed: 1}); err != nil {
				t.Fatal(err)
			}
			th := theta.Slice(0, 6, 0, 1).(*mat.Dense)
			xs := mat.DenseCopyOf(x.Slice(0, 6, 0, 4))
			clean := c.est.LogProbPairs(th, xs)
			for i, v := range []float64{0, 4, -1} {
				xs.Set(i, 0, v)
			}
			got := c.est.LogProbPairs(th, xs)
			for i := range got {
				if i < 3 && !math.IsInf(got[i], -1) || i >= 3 && got[i] != clean[i] {
					t.Errorf("pair %d (count %v): LogProbPairs %v, clean %v", i, xs.At(i, 0), got[i], clean[i])
				}
			}
			_, err := sampleContext(context.Background(), c.est.Posterior(xs.RawRowView(1)), rng, 5)
			if err == nil || !strings.Contains(err.Error(), "MaxTrials = 3") {
				t.Errorf("sampling at a count of 4: error %v, want one naming MaxTrials", err)
			}
			if nre, ok := c.est.(*NRE); ok {
				if _, err := nre.PosteriorTrials(xs.Slice(3, 6, 0, 4).(*mat.Dense)).SampleContext(context.Background(), rng, 5); err != nil {
					t.Errorf("trials of readable observations: %v", err)
				}
				_, err := nre.PosteriorTrials(xs.Slice(1, 6, 0, 4).(*mat.Dense)).SampleContext(context.Background(), rng, 5)
				if err == nil || !strings.Contains(err.Error(), "MaxTrials = 3") {
					t.Errorf("trials holding a count of 4: error %v, want one naming MaxTrials", err)
				}
			}
		})
	}
}

func equalOrBothNegInf(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

// TestDeepSetPack checks the layout Pack and WithCounts write and the errors they give.
func TestDeepSetPack(t *testing.T) {
	e := DeepSetEmbedding{TrialDim: 2, MaxTrials: 3}
	got, err := e.Pack(mat.NewDense(2, 2, []float64{1, 2, 3, 4}))
	if want := []float64{2, 1, 2, 3, 4, 0, 0}; err != nil || !floatsEqual(got, want) {
		t.Errorf("Pack: %v, %v; want %v", got, err, want)
	}
	fixed, err := DeepSetEmbedding{TrialDim: 2}.Pack(mat.NewDense(2, 2, []float64{1, 2, 3, 4}))
	if want := []float64{1, 2, 3, 4}; err != nil || !floatsEqual(fixed, want) {
		t.Errorf("Pack without MaxTrials: %v, %v; want %v", fixed, err, want)
	}
	w, err := e.WithCounts(mat.NewDense(2, 6, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}), []int{1, 3})
	if want := []float64{1, 1, 2, 0, 0, 0, 0, 3, 7, 8, 9, 10, 11, 12}; err != nil || !floatsEqual(w.RawMatrix().Data, want) {
		t.Errorf("WithCounts: %v, %v; want %v", w, err, want)
	}
	for name, err := range map[string]error{
		"Pack/wide":        func() error { _, err := e.Pack(mat.NewDense(1, 3, nil)); return err }(),
		"Pack/many":        func() error { _, err := e.Pack(mat.NewDense(4, 2, nil)); return err }(),
		"WithCounts/zero":  func() error { _, err := e.WithCounts(mat.NewDense(1, 6, nil), []int{0}); return err }(),
		"WithCounts/cols":  func() error { _, err := e.WithCounts(mat.NewDense(1, 5, nil), []int{1}); return err }(),
		"WithCounts/fixed": func() error { _, err := DeepSetEmbedding{}.WithCounts(mat.NewDense(1, 1, nil), []int{1}); return err }(),
		// 3 × wraps3To5 is 5 modulo 2⁶⁴ (2³²): not a width of 5 columns
		"WithCounts/wraps": func() error {
			_, err := DeepSetEmbedding{TrialDim: wraps3To5, MaxTrials: 3}.WithCounts(mat.NewDense(1, 5, nil), []int{1})
			return err
		}(),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func floatsEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestEmbeddingSummaryDisplay checks that the summary shows every layer with its weights, as
// text and HTML.
func TestEmbeddingSummaryDisplay(t *testing.T) {
	s := MustDescribeEmbedding(CNN1DEmbedding{Channels: 2}, 200)
	txt := s.String()
	html, _ := s.MIMEBundle()["text/html"].(string)
	for _, want := range []string{"cnn1d embedding: 200 values → 20 summaries", "Conv1D 2→6, kernel 5, padding 2, relu", "MaxPool1D 2", "25 positions × 12 channels", "Linear 300→50, relu", "Linear 50→20"} {
		if !strings.Contains(txt, want) || !strings.Contains(html, strings.TrimPrefix(want, "cnn1d embedding")) {
			t.Errorf("summary lacks %q:\n%s\n%s", want, txt, html)
		}
	}
	if _, err := DescribeEmbedding(otherEmbedding{}, 3); err == nil {
		t.Error("DescribeEmbedding of an embedding of another package: no error")
	}
}

type otherEmbedding struct{}

func (otherEmbedding) Build(*rand.Rand, int) (EmbeddingNet, error) { return nil, nil }

// TestStreamStandardizesByLayout checks that training from a source standardizes x as
// training from memory does for an embedding with an InputLayout.
func TestStreamStandardizesByLayout(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	emb := DeepSetEmbedding{TrialDim: 1, MaxTrials: 4}
	theta := mat.NewDense(300, 1, nil)
	x := mat.NewDense(300, 5, nil)
	for i := 0; i < 300; i++ {
		theta.Set(i, 0, rng.NormFloat64())
		k := 1 + rng.IntN(4)
		x.Set(i, 0, float64(k))
		for s := 0; s < k; s++ {
			x.Set(i, 1+s, 3+2*rng.NormFloat64())
		}
	}
	idx := make([]int, 300)
	for i := range idx {
		idx[i] = i
	}
	want, err := fitXScore(emb, x, idx)
	if err != nil {
		t.Fatal(err)
	}
	_, got, _, _, _, err := streamZScore(storeOf(t, theta, x, 64), 37, emb)
	if err != nil {
		t.Fatal(err)
	}
	for j := range want.Mean {
		if math.Abs(got.Mean[j]-want.Mean[j]) > 1e-12 || math.Abs(got.Std[j]-want.Std[j]) > 1e-12 {
			t.Errorf("column %d: streamed mean %v, deviation %v; in memory %v and %v", j, got.Mean[j], got.Std[j], want.Mean[j], want.Std[j])
		}
	}
	x.Set(5, 0, 7)
	if _, _, _, _, _, err := streamZScore(storeOf(t, theta, x, 64), 37, emb); err == nil || !strings.Contains(err.Error(), "x = [7 ") {
		t.Errorf("a count of 7 in pair 5: error %v, want one showing its x", err)
	}
}

// TestEmbeddingStepAllocatesNothing checks the engine's promise through the embeddings: a
// steady-state NPE training step (MAF with tanh, whose vector tanh once sent its buffer to
// the heap) with each embedding allocates nothing.
func TestEmbeddingStepAllocatesNothing(t *testing.T) {
	if !fastKernelBuild {
		t.Skip("noasm build: gonum's Dgemm allocates for its goroutines; the promise holds for the default and openblas builds")
	}
	cases := []struct {
		emb Embedding
		in  int
		x   func(rng *rand.Rand, row []float64)
	}{
		{CNN1DEmbedding{Channels: 2, Conv: []int{4, 8}, Hidden: []int{16}, Out: 4}, 2 * 30, nil},
		{CNN2DEmbedding{Height: 6, Width: 6, Conv: []int{4, 8}, Hidden: []int{16}, Out: 4}, 36, nil},
		{GRUEmbedding{Channels: 2, Hidden: 8, Out: 4}, 2 * 10, nil},
		{DeepSetEmbedding{TrialDim: 2, MaxTrials: 5, Hidden: []int{8}, Features: 8, Head: []int{8}, Out: 4}, 11,
			func(rng *rand.Rand, row []float64) {
				k := 1 + rng.IntN(5)
				row[0] = float64(k)
				for j := 1 + 2*k; j < len(row); j++ {
					row[j] = 0
				}
			}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%T", c.emb), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			prior := dist.NewNormal([]float64{0, 0}, []float64{1, 1})
			theta := prior.Sample(rng, 300)
			x := mat.NewDense(300, c.in, nil)
			for i := 0; i < 300; i++ {
				row := x.RawRowView(i)
				for j := range row {
					row[j] = theta.At(i, j%2) + rng.NormFloat64()
				}
				if c.x != nil {
					c.x(rng, row)
				}
			}
			e := NewNPE(prior, NPEConfig{Hidden: 16, Transforms: 2, Embedding: c.emb})
			if _, err := e.Train(theta, x, TrainConfig{Epochs: 1}); err != nil {
				t.Fatal(err)
			}
			m := (*npeModel)(e)
			d := &trainData{theta: theta, x: x, thetaZ: e.zt.apply(theta), xZ: e.zx.apply(x)}
			st := step{tp: nn.NewTape(), m: m, d: d, rng: rng, opt: nn.NewAdam(m.params(), 1e-3), clip: 5}
			batches := [][]int{rng.Perm(300)[:64], rng.Perm(300)[:64]}
			k := 0
			run := func() {
				k++
				if _, _, _, err := st.run(batches[k%2]); err != nil {
					t.Fatal(err)
				}
			}
			run()
			run()
			if allocs := testing.AllocsPerRun(20, run); allocs != 0 {
				t.Errorf("a steady-state step allocates %v times", allocs)
			}
		})
	}
}

// TestNREDeepSetRefusesBadCounts checks the ratio estimator's side: a count of trials out of
// range gives NaN from LogRatio and −Inf from LogProbPairs for that pair alone, and its
// posterior refuses to sample.
func TestNREDeepSetRefusesBadCounts(t *testing.T) {
	emb := DeepSetEmbedding{TrialDim: 1, MaxTrials: 3, Hidden: []int{8}, Features: 4, Head: []int{8}, Out: 2}
	prior := dist.NewNormal([]float64{0}, []float64{1})
	rng := rand.New(rand.NewPCG(6, 7))
	theta := prior.Sample(rng, 200)
	x := mat.NewDense(200, 4, nil)
	for i := 0; i < 200; i++ {
		k := 1 + i%3
		x.Set(i, 0, float64(k))
		for s := 0; s < k; s++ {
			x.Set(i, 1+s, theta.At(i, 0)+rng.NormFloat64())
		}
	}
	nre := NewNRE(prior, NREConfig{Hidden: []int{8}, Embedding: emb})
	if _, err := nre.Train(theta, x, TrainConfig{Epochs: 2, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	th := theta.Slice(0, 4, 0, 1).(*mat.Dense)
	xs := mat.DenseCopyOf(x.Slice(0, 4, 0, 4))
	clean := nre.LogProbPairs(th, xs)
	xs.Set(1, 0, 9)
	lr, lp := nre.LogRatio(th, xs), nre.LogProbPairs(th, xs)
	for i := range lp {
		switch {
		case i == 1 && (!math.IsNaN(lr[i]) || !math.IsInf(lp[i], -1)):
			t.Errorf("pair with a count of 9: LogRatio %v, LogProbPairs %v; want NaN and −Inf", lr[i], lp[i])
		case i != 1 && lp[i] != clean[i]:
			t.Errorf("pair %d: LogProbPairs %v beside a bad pair, %v without", i, lp[i], clean[i])
		}
	}
	if _, err := nre.PosteriorWith(xs.RawRowView(1), SamplerConfig{}).SampleChecked(rng, 5); err == nil || !strings.Contains(err.Error(), "MaxTrials = 3") {
		t.Errorf("sampling at a count of 9: error %v, want one naming MaxTrials", err)
	}
}

// TestCNNPoolBeforeReLU checks that a ReLU CNN embedding with max pooling gives the same
// summaries and the same gradients (of its weights and of its input), to the bit, whether
// each pooling is taken before the activation (cnnNet.Forward's order with ReLU) or after it;
// the inputs include exact zeros, windows of negatives only and ties, where the order could
// route a gradient elsewhere.
func TestCNNPoolBeforeReLU(t *testing.T) {
	defer func() { poolFirst = true }()
	for _, c := range []struct {
		emb SavableEmbedding
		in  int
	}{
		{CNN1DEmbedding{Channels: 2}, 2 * 100}, // sbi's defaults
		{CNN1DEmbedding{Channels: 3, Conv: []int{4, 5}, Kernel: 3, Pool: 3, Causal: true}, 3 * 31},
		{CNN2DEmbedding{Height: 9, Width: 8, Conv: []int{4, 3}, Pool: 2}, 9 * 8},
	} {
		net, err := c.emb.Build(rand.New(rand.NewPCG(3, 3)), c.in)
		if err != nil {
			t.Fatal(err)
		}
		const n = 6
		rng := rand.New(rand.NewPCG(4, 4))
		x0 := make([]float64, n*c.in)
		for i := range x0 {
			switch i % 7 {
			case 0:
				x0[i] = 0
			case 1:
				x0[i] = x0[i-1] // a tie
			default:
				x0[i] = rng.NormFloat64() - 0.3
			}
		}
		run := func(first bool) [][]float64 {
			poolFirst = first
			return embeddingResults(net, x0, n, c.in)
		}
		after, before := run(false), run(true)
		for k := range after {
			for i := range after[k] {
				if math.Float64bits(after[k][i]) != math.Float64bits(before[k][i]) {
					t.Fatalf("%T: value %d of output %d: %v pooling after ReLU, %v before", c.emb, i, k, after[k][i], before[k][i])
				}
			}
		}
	}
}

// embeddingResults runs net forward on the n rows of in values x0 and back from the upstream
// gradient cos(3i + 1), and returns copies of the summaries, the input's gradient and each
// parameter's gradient (cleared first).
func embeddingResults(net EmbeddingNet, x0 []float64, n, in int) [][]float64 {
	for _, p := range net.Params() {
		clear(p.Grad)
	}
	tp := nn.NewTape()
	x := tp.Variable(n, in, x0)
	y := net.Forward(tp, x)
	dy := make([]float64, y.Len())
	for i := range dy {
		dy[i] = math.Cos(float64(3*i + 1))
	}
	tp.BackwardWith(y, dy)
	out := [][]float64{append([]float64(nil), y.Data...), append([]float64(nil), x.Grad...)}
	for _, p := range net.Params() {
		out = append(out, append([]float64(nil), p.Grad...))
	}
	return out
}

// TestEmbeddingConfigBeforeRows trains every estimator with a set embedding whose
// configuration cannot read x: the error must name the configuration (what to change), not
// a row of x that the broken configuration misreads. Before, MaxTrials −1 or 2³⁰, and a width
// of 6 for 1 + 2·3 = 7 values, were reported as row 0 holding a count out of range.
func TestEmbeddingConfigBeforeRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 9))
	prior := dist.NewStandardNormal(2)
	theta := prior.Sample(rng, 40)
	x := mat.NewDense(40, 6, nil)
	for i := range 40 {
		for j := range 6 {
			x.Set(i, j, theta.At(i, j%2)+rng.NormFloat64())
		}
	}
	cases := []struct {
		name string
		emb  DeepSetEmbedding
		want string
	}{
		{"negative MaxTrials", DeepSetEmbedding{MaxTrials: -1}, "MaxTrials from 0 to"},
		{"MaxTrials beyond the bound", DeepSetEmbedding{MaxTrials: 1 << 30}, "MaxTrials from 0 to"},
		{"a width without the count", DeepSetEmbedding{TrialDim: 3, MaxTrials: 2}, "1 + MaxTrials·TrialDim = 7"},
		{"an unknown pooling", DeepSetEmbedding{MaxTrials: 5, Pool: "median"}, `Pool "median"`},
	}
	for _, c := range cases {
		ests := map[string]Estimator{
			"npe":  NewNPE(prior, NPEConfig{Hidden: 4, Transforms: 1, Embedding: c.emb}),
			"nre":  NewNRE(prior, NREConfig{Hidden: []int{4}, Embedding: c.emb}),
			"fmpe": NewFMPE(prior, FMPEConfig{Hidden: 4, Layers: 1, Embedding: c.emb}),
		}
		for name, e := range ests {
			t.Run(c.name+"/"+name, func(t *testing.T) {
				_, err := e.Train(theta, x, TrainConfig{Epochs: 1})
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("error %v, want one saying %q", err, c.want)
				}
			})
		}
	}
}

// TestDeepSetPackChecksConfig: Pack refuses, before it allocates anything, a configuration
// that Train refuses, with Train's error naming the setting (MaxTrials 2^30 made it allocate
// 1 + 2^30 values and crash the process; MaxTrials −1 or an unknown Pool packed trials the
// estimator cannot read).
func TestDeepSetPackChecksConfig(t *testing.T) {
	trials := mat.NewDense(2, 1, []float64{1, 2})
	cases := []struct {
		name string
		e    DeepSetEmbedding
		want string
	}{
		{"MaxTrials 2^30", DeepSetEmbedding{MaxTrials: 1 << 30}, "MaxTrials 1073741824"},
		{"MaxTrials beyond the bound", DeepSetEmbedding{MaxTrials: maxSetTrials + 1}, "MaxTrials from 0 to"},
		{"MaxTrials -1", DeepSetEmbedding{MaxTrials: -1}, "MaxTrials -1"},
		{"TrialDim -1", DeepSetEmbedding{TrialDim: -1, MaxTrials: 3}, "TrialDim -1"},
		{"Pool", DeepSetEmbedding{MaxTrials: 3, Pool: "median"}, `Pool "median"`},
		{"Activation", DeepSetEmbedding{Activation: "swish"}, "swish"},
		{"Features", DeepSetEmbedding{MaxTrials: 3, Features: -2}, "Features -2"},
		{"Hidden", DeepSetEmbedding{Hidden: []int{0}}, "Hidden widths"},
		{"Head", DeepSetEmbedding{MaxTrials: 3, Head: []int{4, -1}}, "Head widths"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := c.e.withDefaults()
			in := e.TrialDim // the width of x Train sees: one trial, or the count and MaxTrials trials
			if e.MaxTrials > 0 {
				in = satAdd(1, satMul(e.MaxTrials, e.TrialDim))
			}
			_, trainErr := e.check(in)
			if trainErr == nil {
				t.Fatalf("the configuration %+v passes Train's check", c.e)
			}
			x, err := c.e.Pack(trials)
			if err == nil {
				t.Fatalf("Pack gave %d values and no error, expected Train's: %v", len(x), trainErr)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), trainErr.Error()) {
				t.Fatalf("Pack: %v, expected an error naming %q and holding Train's %q", err, c.want, trainErr)
			}
		})
	}
}
