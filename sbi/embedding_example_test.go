package sbi_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"gonum.org/v1/gonum/mat"
)

// A 1-D CNN summarizes series of 100 steps of 2 channels (stored channels-last: step t,
// channel c is column 2t + c) for an NPE; the summary lists its layers as it is built for
// them.
func ExampleCNN1DEmbedding() {
	emb := sbi.CNN1DEmbedding{Channels: 2, Conv: []int{8, 16}, Out: 10}
	fmt.Println(sbi.MustDescribeEmbedding(emb, 200))

	// Damped oscillations of unknown frequency and damping, observed with noise.
	prior := dist.NewBoxUniform([]float64{0.5, 0.01}, []float64{2, 0.1})
	rng := rand.New(rand.NewPCG(1, 2))
	theta := prior.Sample(rng, 300)
	x := mat.NewDense(300, 200, nil)
	for i := 0; i < 300; i++ {
		w, d := theta.At(i, 0), theta.At(i, 1)
		for t := 0; t < 100; t++ {
			s := float64(t) * 0.1
			x.Set(i, 2*t, math.Exp(-d*s)*math.Cos(w*s)+0.1*rng.NormFloat64())
			x.Set(i, 2*t+1, -math.Exp(-d*s)*math.Sin(w*s)+0.1*rng.NormFloat64())
		}
	}
	npe := sbi.NewNPE(prior, sbi.NPEConfig{Hidden: 32, Transforms: 2, Embedding: emb})
	res, err := npe.Train(theta, x, sbi.TrainConfig{Epochs: 2, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Estimator, "trained on", res.TrainRows, "series")
	// Output:
	// cnn1d embedding: 200 values → 10 summaries, 21304 weights
	//   layer                                   output                       weights
	//   Conv1D 2→8, kernel 5, padding 2, relu   100 positions × 8 channels        88
	//   MaxPool1D 2                             50 positions × 8 channels          0
	//   Conv1D 8→16, kernel 5, padding 2, relu  50 positions × 16 channels       656
	//   MaxPool1D 2                             25 positions × 16 channels         0
	//   Flatten                                 400                                0
	//   Linear 400→50, relu                     50                             20050
	//   Linear 50→10                            10                               510
	// NPE (maf) trained on 270 series
}

// A DeepSet reads sets of i.i.d. trials whose number varies: with MaxTrials set, an
// observation holds the number of trials first, then the trials, then zeros. WithCounts cuts
// simulations of MaxTrials trials to the numbers of trials to train on; Pack lays out the
// trials of one observation, however many, for Posterior.
func ExampleDeepSetEmbedding() {
	emb := sbi.DeepSetEmbedding{TrialDim: 2, MaxTrials: 4, Out: 8}
	fmt.Println(sbi.MustDescribeEmbedding(emb, 1+4*2))

	full := mat.NewDense(2, 8, []float64{ // two simulations of 4 trials of 2 values
		1, 2, 3, 4, 5, 6, 7, 8,
		-1, -2, -3, -4, -5, -6, -7, -8,
	})
	fmt.Println(mat.Formatted(emb.MustWithCounts(full, []int{1, 3})))

	xo := emb.MustPack(mat.NewDense(2, 2, []float64{0.5, 1.5, 0.7, 1.1})) // an observation of 2 trials
	fmt.Println(xo)
	// Output:
	// deepset embedding: 9 values → 8 summaries, 4968 weights
	//   layer                                                output        weights
	//   per trial: Linear 2→64, relu                         trials × 64       192
	//   per trial: Linear 64→32                              trials × 32      2080
	//   mean pooling over 1 to 4 trials, log count appended  33                  0
	//   Linear 33→64, relu                                   64               2176
	//   Linear 64→8                                          8                 520
	// ⎡ 1   1   2   0   0   0   0   0   0⎤
	// ⎣ 3  -1  -2  -3  -4  -5  -6   0   0⎦
	// [2 0.5 1.5 0.7 1.1 0 0 0 0]
}

// A 2-D CNN for images of 8×8 pixels of one channel: the zero value reads a square image.
func ExampleCNN2DEmbedding() {
	fmt.Println(sbi.MustDescribeEmbedding(sbi.CNN2DEmbedding{Out: 5}, 64))
	// Output:
	// cnn2d embedding: 64 values → 5 summaries, 5733 weights
	//   layer                                     output                     weights
	//   Conv2D 1→8, kernel 3×3, padding 1, relu   8×8 pixels × 8 channels         80
	//   MaxPool2D 2×2                             4×4 pixels × 8 channels          0
	//   Conv2D 8→16, kernel 3×3, padding 1, relu  4×4 pixels × 16 channels      1168
	//   MaxPool2D 2×2                             2×2 pixels × 16 channels         0
	//   Flatten                                   64                               0
	//   Linear 64→64, relu                        64                            4160
	//   Linear 64→5                               5                              325
}

// A GRU reads a long series step by step; its weights do not grow with the length.
func ExampleGRUEmbedding() {
	for _, steps := range []int{100, 1000} {
		s := sbi.MustDescribeEmbedding(sbi.GRUEmbedding{Channels: 2, Hidden: 16, Out: 8}, 2*steps)
		fmt.Println(s.Layers[0].Layer, "→", s.Out, "summaries,", s.Weights, "weights")
	}
	// Output:
	// GRU 2→16 over 100 positions, final state → 8 summaries, 1096 weights
	// GRU 2→16 over 1000 positions, final state → 8 summaries, 1096 weights
}
