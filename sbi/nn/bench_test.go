package nn

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// BenchmarkMLPStep is one Adam step of an 8 → 128 → 128 → 1 ReLU MLP on a batch of 512 with a
// squared-error loss.
func BenchmarkMLPStep(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	net := NewMLP(rng, []int{8, 128, 128, 1}, ReLU)
	opt := NewAdam(net.Params(), 1e-3)
	x := randConst(rng, 512, 8, -1, 1)
	y := randConst(rng, 512, 1, -1, 1)
	tp := NewTape()
	step := func() {
		xb, yb := tp.Const(512, 8, x.Data), tp.Const(512, 1, y.Data)
		loss := tp.Mean(tp.Square(tp.Sub(net.Forward(tp, xb), yb)))
		tp.Backward(loss)
		opt.Step()
		opt.ZeroGrad()
		tp.Reset()
	}
	step()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		step()
	}
}

// BenchmarkNREStep is one step of neural ratio estimation as in lampe's NRE on two_moons
// shapes: an MLP with 3×64 ReLU hidden units on concat(θ, x) (2+2 inputs), a batch of 128
// joint pairs and 128 pairs with θ shuffled, binary cross-entropy, Adam.
func BenchmarkNREStep(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n, batch = 4096, 128
	theta, x := mat.NewDense(n, 2, nil), mat.NewDense(n, 2, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < 2; j++ {
			theta.Set(i, j, rng.NormFloat64())
			x.Set(i, j, theta.At(i, j)+0.1*rng.NormFloat64())
		}
	}
	net := NewMLP(rng, []int{4, 64, 64, 64, 1}, ReLU)
	opt := NewAdam(net.Params(), 1e-3)
	tp := NewTape()
	idx, shuf := make([]int, batch), make([]int, batch)
	step := func() {
		for k := range idx {
			idx[k] = rng.IntN(n)
		}
		for k := range shuf {
			shuf[k] = idx[(k+1)%batch]
		}
		xb := tp.Gather(x, idx)
		joint := tp.Concat(tp.Gather(theta, idx), xb)
		marg := tp.Concat(tp.Gather(theta, shuf), xb)
		ones, zeros := tp.New(batch, 1), tp.New(batch, 1)
		for i := range ones.Data {
			ones.Data[i] = 1
		}
		l1 := tp.BCEWithLogits(net.Forward(tp, joint), ones)
		l0 := tp.BCEWithLogits(net.Forward(tp, marg), zeros)
		tp.Backward(tp.Add(l1, l0))
		ClipGradNorm(opt.Params(), 5)
		opt.Step()
		opt.ZeroGrad()
		tp.Reset()
	}
	step()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		step()
	}
}
