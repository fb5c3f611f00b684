package nn_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// A logistic classifier trained with Adam on two Gaussian clusters: forward, loss, backward,
// optimizer step, reset.
func Example() {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 256
	x := mat.NewDense(n, 2, nil)
	y := mat.NewDense(n, 1, nil)
	for i := 0; i < n; i++ {
		label := float64(i % 2)
		x.Set(i, 0, rng.NormFloat64()+4*label-2)
		x.Set(i, 1, rng.NormFloat64())
		y.Set(i, 0, label)
	}

	net := nn.NewMLP(rng, []int{2, 16, 1}, nn.Tanh)
	opt := nn.NewAdam(net.Params(), 0.01)
	tp := nn.NewTape()
	batch := make([]int, 64)
	var loss float64
	for step := 0; step < 300; step++ {
		for k := range batch {
			batch[k] = rng.IntN(n)
		}
		xb, yb := tp.Gather(x, batch), tp.Gather(y, batch)
		l := tp.BCEWithLogits(net.Forward(tp, xb), yb)
		loss = l.Item()
		tp.Backward(l)
		nn.ClipGradNorm(opt.Params(), 5)
		opt.Step()
		opt.ZeroGrad()
		tp.Reset()
	}

	// evaluate without recording
	tp.NoGrad = true
	logits := net.Forward(tp, tp.FromDense(x))
	correct := 0
	for i := 0; i < n; i++ {
		if (logits.Data[i] > 0) == (y.At(i, 0) == 1) {
			correct++
		}
	}
	fmt.Printf("final minibatch loss below 0.2: %v\n", loss < 0.2)
	fmt.Printf("training accuracy above 95%%: %v\n", float64(correct)/n > 0.95)
	// Output:
	// final minibatch loss below 0.2: true
	// training accuracy above 95%: true
}

// GradientError compares a computation's backward pass with central differences: here the
// tape's own Tanh and Mul, whose error is far below the 1e-6 a wrong term would exceed.
func ExampleGradientError() {
	x := nn.NewVariable(2, 2, []float64{0.3, -1, 2, 0.5})
	errs, err := nn.GradientError([]*nn.Tensor{x}, func(tp *nn.Tape, in []*nn.Tensor) *nn.Tensor {
		return tp.Tanh(tp.Mul(in[0], in[0]))
	}, 1e-5, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("within 1e-6:", errs[0] <= 1e-6)
	// Output:
	// within 1e-6: true
}
