package nn_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/gosbi/gosbi/sbi/nn"
)

// The layers of a small series network: a convolution of 2 → 4 channels over series of 10
// steps, a layer normalization of each step's channels, and a GRU over the result whose final
// state summarizes each series. Each layer owns its weights, initialized as PyTorch's are.
func ExampleNewConv1D() {
	rng := rand.New(rand.NewPCG(1, 2))
	conv := nn.NewConv1D(rng, "conv", nn.Conv1DConfig{Channels: 2, Length: 10, Kernel: 3, Padding: 1}, 4)
	norm := nn.NewLayerNorm("norm", 4)
	gru := nn.NewGRU(rng, "gru", 4, 8)

	tp := nn.NewTape()
	x := tp.New(5, 10*2) // 5 series, channels-last
	h := norm.Forward(tp, tp.ReLU(conv.Forward(tp, x)))
	last := gru.Last(tp, h, conv.OutLength())
	fmt.Println(h.Rows, h.Cols, last.Rows, last.Cols, nn.NumParams(conv.Params()), nn.NumParams(gru.Params()))
	// Output: 5 40 5 8 28 336
}
