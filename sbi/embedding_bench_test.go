package sbi

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/internal/cputime"
	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkNPECNNStep is one training step (forward, backward, clipping at norm 5, Adam) of
// an NPE with a 1-D CNN embedding on series of 100 steps of 2 channels, batch 128: sbi's
// defaults on both sides, a MAF of 5 transforms with MADEs of 2×50 (tanh) and the
// CNNEmbedding of sbi (convolutions of 6 and 12 channels, kernel 5, max pooling by 2, a head
// of 50 units to 20 summaries). Its PyTorch twin is npe_cnn_step in
// tools/benchmarks/torch_reference.py.
func BenchmarkNPECNNStep(b *testing.B) { benchNPECNNStep(b, CNN1DEmbedding{Channels: 2}) }

// BenchmarkNPECNNStep32 is BenchmarkNPECNNStep with the embedding's convolution stack in
// float32 (CNN1DEmbedding.Float32), against the same PyTorch twin (float32 throughout).
func BenchmarkNPECNNStep32(b *testing.B) {
	benchNPECNNStep(b, CNN1DEmbedding{Channels: 2, Float32: true})
}

func benchNPECNNStep(b *testing.B, emb CNN1DEmbedding) {
	const n, steps = 2000, 100
	rng := rand.New(rand.NewPCG(1, 2))
	prior := dist.NewUniformCube(0.5, 2, 2)
	theta := prior.Sample(rng, n)
	x := mat.NewDense(n, 2*steps, nil)
	for i := 0; i < n; i++ {
		w, d := theta.At(i, 0), theta.At(i, 1)
		for t := 0; t < steps; t++ {
			s := 0.1 * float64(t)
			x.Set(i, 2*t, math.Exp(-0.1*d*s)*math.Cos(w*s)+0.1*rng.NormFloat64())
			x.Set(i, 2*t+1, math.Exp(-0.1*d*s)*math.Sin(w*s)+0.1*rng.NormFloat64())
		}
	}
	e := NewNPE(prior, NPEConfig{Embedding: emb})
	if _, err := e.Train(theta, x, TrainConfig{Epochs: 1}); err != nil {
		b.Fatal(err)
	}
	m := (*npeModel)(e)
	d := &trainData{theta: theta, x: x, thetaZ: e.zt.apply(theta), xZ: e.zx.apply(x)}
	st := step{tp: nn.NewTape(), m: m, d: d, rng: rng, opt: nn.NewAdam(m.params(), 5e-4), clip: 5}
	perm := rng.Perm(n)
	if _, _, _, err := st.run(perm[:128]); err != nil { // sizes the tape's buffers
		b.Fatal(err)
	}
	i := 0
	cputime.Report(b, func() {
		lo := (i * 128) % (n - 128)
		i++
		if _, _, _, err := st.run(perm[lo : lo+128]); err != nil {
			b.Fatal(err)
		}
	})
}
