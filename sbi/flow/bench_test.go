package flow

import (
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/sbi/internal/cputime"
	"github.com/gosbi/gosbi/sbi/internal/nntest"
	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkNPEStep is one maximum-likelihood step of neural posterior estimation on
// two_moons shapes: an NSF of 5 masked autoregressive spline transforms (2×64 hidden ReLU
// units, 8 bins), θ of dimension 2, context of dimension 2, batch 128, gradient clipping,
// Adam.
func BenchmarkNPEStep(b *testing.B) {
	benchStep(b, Config{Kind: NSF, Features: 2, Context: 2, Transforms: 5, Hidden: []int{64, 64}, Bins: 8})
}

// BenchmarkMAFStep is BenchmarkNPEStep with affine transforms.
func BenchmarkMAFStep(b *testing.B) {
	benchStep(b, Config{Kind: MAF, Features: 2, Context: 2, Transforms: 5, Hidden: []int{64, 64}})
}

func benchStep(b *testing.B, cfg Config) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n, batch = 4096, 128
	theta, x := mat.NewDense(n, 2, nil), mat.NewDense(n, 2, nil)
	for i := 0; i < n; i++ {
		drawPair(rng, theta.RawRowView(i), x.RawRowView(i))
	}
	f, err := New(rng, cfg)
	if err != nil {
		b.Fatal(err)
	}
	opt := nn.NewAdam(f.Params(), 5e-4)
	tp := nn.NewTape()
	idx := make([]int, batch)
	step := func() {
		for k := range idx {
			idx[k] = rng.IntN(n)
		}
		loss := tp.Neg(tp.Mean(f.LogProb(tp, tp.Gather(theta, idx), tp.Gather(x, idx))))
		tp.Backward(loss)
		nn.ClipGradNorm(opt.Params(), 5)
		opt.Step()
		opt.ZeroGrad()
		tp.Reset()
	}
	step()
	cputime.Report(b, step)
}

// BenchmarkMADEForward evaluates the reference NSF's MADE (2 features, 2 context inputs, 2×64
// ReLU hidden units, 23 outputs per feature) on a chunk of 512 rows without gradients, in
// float64 and in float32 (EvalConfig.Float32; where there is no float32 kernel both sub-benchmarks
// run float64): the ratio of the two is the float32 path's speed-up of the products.
func BenchmarkMADEForward(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	m := NewMADE(rng, 2, 2, []int{64, 64}, 23, nn.ReLU)
	x, ctx := nntest.Const(rng, 512, 2, -2, 2), nntest.Const(rng, 512, 2, -2, 2)
	for _, f32 := range []bool{false, true} {
		name := "float64"
		if f32 {
			name = "float32"
		}
		b.Run(name, func(b *testing.B) {
			tp := nn.NewTape()
			tp.NoGrad = true
			ev := EvalConfig{Float32: f32}
			cputime.Report(b, func() {
				m.forward(tp, x, ctx, ev)
				tp.Reset()
			})
		})
	}
}
