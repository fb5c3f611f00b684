package nn_test

import (
	"fmt"

	"github.com/gosbi/gosbi/sbi/nn"
)

// A causal 1-D convolution over a batch of one series of 6 steps and 1 channel, with a
// kernel of 2 taps: output t sees inputs t−1 and t (zero before the start). Series are stored
// channels-last, one per row.
func ExampleTape_Conv1D() {
	tp := nn.NewTape()
	x := tp.Const(1, 6, []float64{1, 2, 3, 4, 5, 6})
	w := tp.Const(2, 1, []float64{-1, 1}) // tap 0 (t−1) and tap 1 (t): a difference
	cfg := nn.Conv1DConfig{Channels: 1, Length: 6, Kernel: 2, Causal: true}
	y := tp.Conv1D(x, w, nil, cfg)
	fmt.Println(cfg.OutLength(), y.Data)
	fmt.Println(tp.MaxPool1D(y, nn.Conv1DConfig{Channels: 1, Length: 6, Kernel: 3}).Data)
	// Output:
	// 6 [1 1 1 1 1 1]
	// [1 1]
}

// Two sets of different sizes (3 and 2 elements of 2 features) pooled per set: the mean does
// not depend on the order of the elements, as a DeepSet needs.
func ExampleTape_SegmentMean() {
	tp := nn.NewTape()
	elems := tp.Const(5, 2, []float64{
		1, 10, // set 0
		2, 20,
		3, 30,
		7, 70, // set 1
		9, 90,
	})
	offsets := []int{0, 3, 5}
	fmt.Println(tp.SegmentMean(elems, offsets).Data)
	fmt.Println(tp.SegmentMax(elems, offsets).Data)
	// Output:
	// [2 20 8 80]
	// [3 30 9 90]
}

// Self-attention over a batch of 2 sequences of 3 tokens with 4 features, 2 heads: q, k and v
// hold one row per token, the sequences one after the other.
func ExampleTape_Attention() {
	tp := nn.NewTape()
	tokens := tp.New(2*3, 4)
	for i := range tokens.Data {
		tokens.Data[i] = float64(i%5) / 4
	}
	out := tp.Attention(tokens, tokens, tokens, nn.AttentionConfig{Length: 3, Heads: 2})
	fmt.Println(out.Rows, out.Cols)
	// Output:
	// 6 4
}

// A GRU of 3 hidden units over a batch of 2 series of 4 steps with 1 channel: the result holds
// the state after every step, channels-last; its last 3 columns are the final states. With
// zero recurrent weights both gates are ½, so the first series' state 0.38 = ½·tanh(1) after
// its pulse halves at every later step: 0.048 at the end.
func ExampleTape_GRU() {
	tp := nn.NewTape()
	x := tp.Const(2, 4, []float64{1, 0, 0, 0, 0, 0, 0, 1})
	wi, wh := tp.New(1, 9), tp.New(3, 9) // [r z m] side by side
	for j := 6; j < 9; j++ {
		wi.Data[j] = 1 // the candidate state follows the input
	}
	h := tp.GRU(x, wi, wh, nil, nil, 4)
	fmt.Println(h.Rows, h.Cols)
	fmt.Printf("%.3f\n", h.Data[9:12])
	// Output:
	// 2 12
	// [0.048 0.048 0.048]
}
