package nn

import (
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/sbi/internal/cputime"
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
	cputime.Report(b, step)
}

// BenchmarkNREStep is one step of neural ratio estimation as in lampe's NRE on two_moons
// shapes: an MLP with 3×64 ReLU hidden units on concat(θ, x) (2+2 inputs), a batch of 128
// joint pairs and 128 pairs with θ shuffled, binary cross-entropy (the mean of the two
// classes' losses, lampe's NRELoss), gradient clipping, Adam. Joint and shuffled pairs go
// through the network as one stacked batch of 256 rows.
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
	thetaIdx, xIdx := make([]int, 2*batch), make([]int, 2*batch)
	step := func() {
		for k := 0; k < batch; k++ {
			i := rng.IntN(n)
			thetaIdx[k], xIdx[k], xIdx[batch+k] = i, i, i
		}
		for k := 0; k < batch; k++ { // θ of the next pair: a shuffled (marginal) pair
			thetaIdx[batch+k] = thetaIdx[(k+1)%batch]
		}
		in := tp.Concat(tp.Gather(theta, thetaIdx), tp.Gather(x, xIdx))
		labels := tp.New(2*batch, 1)
		for k := 0; k < batch; k++ {
			labels.Data[k] = 1
		}
		loss := tp.BCEWithLogits(net.Forward(tp, in), labels)
		tp.Backward(loss)
		ClipGradNorm(opt.Params(), 5)
		opt.Step()
		opt.ZeroGrad()
		tp.Reset()
	}
	step()
	cputime.Report(b, step)
}
