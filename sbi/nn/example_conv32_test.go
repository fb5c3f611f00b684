package nn_test

import (
	"fmt"

	"github.com/gosbi/gosbi/sbi/nn"
)

// A two-layer convolution stack in float32 inside a float64 network: the series are cast
// with To32, convolved twice with a ReLU between (the layers' float64 parameters cast inside
// the ops), cast back with To64, and the loss's gradient reaches the float64 weights.
func ExampleTape_Conv1D32() {
	tp := nn.NewTape()
	x := tp.Const(1, 6, []float64{1, 2, 3, 4, 5, 6}) // one series, 6 steps, 1 channel
	cfg1 := nn.Conv1DConfig{Channels: 1, Length: 6, Kernel: 2, Causal: true}
	w1 := nn.NewVariable(2, 1, []float64{-1, 1}) // a difference: x[t] − x[t−1]
	cfg2 := nn.Conv1DConfig{Channels: 1, Length: 6, Kernel: 3, Padding: 1}
	w2 := nn.NewVariable(3, 1, []float64{1, 1, 1}) // a moving sum of 3
	h := tp.ReLU32(tp.Conv1D32(tp.To32(x), w1, nil, cfg1))
	y := tp.To64(tp.Conv1D32(h, w2, nil, cfg2))
	fmt.Println(y.Data)
	tp.Backward(tp.Sum(y))
	fmt.Println(w2.Grad)
	// Output:
	// [2 3 3 3 3 2]
	// [5 6 5]
}

// Conv2D32 convolves images stored channels-last; here a 3×3 image of one channel with a
// 2×2 kernel that sums its window.
func ExampleTape_Conv2D32() {
	tp := nn.NewTape()
	x := tp.To32(tp.Const(1, 9, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}))
	w := nn.NewTensor(4, 1, []float64{1, 1, 1, 1})
	cfg := nn.Conv2DConfig{Channels: 1, Height: 3, Width: 3, Kernel: [2]int{2, 2}}
	fmt.Println(tp.Conv2D32(x, w, nil, cfg).Data)
	// Output:
	// [12 16 24 28]
}
