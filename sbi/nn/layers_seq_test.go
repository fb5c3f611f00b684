package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// layerCase is a layer applied to an input: its forward pass and its parameters.
type layerCase struct {
	name    string
	in      *Tensor
	params  []*Param
	forward func(tp *Tape, x *Tensor) *Tensor
}

func seqLayerCases(rng *rand.Rand) []layerCase {
	c1 := Conv1DConfig{Channels: 2, Length: 9, Kernel: 3, Padding: 1}
	conv1 := NewConv1D(rng, "c1", c1, 4)
	c1c := Conv1DConfig{Channels: 3, Length: 7, Kernel: 2, Dilation: 2, Causal: true}
	conv1c := NewConv1D(rng, "c1c", c1c, 2)
	c2 := Conv2DConfig{Channels: 2, Height: 5, Width: 4, Kernel: [2]int{3, 3}, Padding: [2]int{1, 1}}
	conv2 := NewConv2D(rng, "c2", c2, 3)
	ln := NewLayerNorm("ln", 3)
	for i := range ln.Gain.Data { // away from the initial 1 and 0, so that wrong terms show
		ln.Gain.Data[i], ln.Bias.Data[i] = 0.5+rng.Float64(), rng.Float64()-0.5
	}
	gru := NewGRU(rng, "gru", 2, 3)
	r := func(rows, cols int) *Tensor { return randVar(rng, rows, cols, -2, 2) }
	return []layerCase{
		{"Conv1D", r(3, 18), conv1.Params(), conv1.Forward},
		{"Conv1D/causal", r(2, 21), conv1c.Params(), conv1c.Forward},
		{"Conv2D", r(2, 40), conv2.Params(), conv2.Forward},
		{"LayerNorm", r(3, 12), ln.Params(), ln.Forward},
		{"GRU", r(3, 10), gru.Params(), func(tp *Tape, x *Tensor) *Tensor { return gru.Forward(tp, x, 5) }},
		{"GRU.Last", r(3, 10), gru.Params(), func(tp *Tape, x *Tensor) *Tensor { return gru.Last(tp, x, 5) }},
	}
}

// TestSeqLayerGradients checks every layer's backward pass with respect to its input and to
// each of its parameters against finite differences, and that Params lists every weight the
// forward pass uses (each gets a gradient).
func TestSeqLayerGradients(t *testing.T) {
	for _, c := range seqLayerCases(rand.New(rand.NewPCG(5, 6))) {
		t.Run(c.name, func(t *testing.T) {
			inputs := []*Tensor{c.in}
			for _, p := range c.params {
				inputs = append(inputs, p.Tensor)
			}
			// The layer runs on the checker's copies of its weights, swapped in for the call.
			errs, err := GradientError(inputs, func(tp *Tape, in []*Tensor) *Tensor {
				saved := make([]*Tensor, len(c.params))
				for k, p := range c.params {
					saved[k], p.Tensor = p.Tensor, in[k+1]
				}
				defer func() {
					for k, p := range c.params {
						p.Tensor = saved[k]
					}
				}()
				return c.forward(tp, in[0])
			}, 1e-5, 7)
			if err != nil {
				t.Fatal(err)
			}
			for k, e := range errs {
				if e > 1e-6 {
					name := "input"
					if k > 0 {
						name = c.params[k-1].Name
					}
					t.Errorf("gradient of %s: relative error %.2g, want < 1e-6", name, e)
				}
			}
			ZeroGrads(c.params)
			tp := NewTape()
			y := c.forward(tp, c.in)
			tp.Backward(tp.Sum(tp.Square(y)))
			for _, p := range c.params {
				if GradNorm([]*Param{p}) == 0 {
					t.Errorf("%s gets no gradient: the forward pass does not use it", p.Name)
				}
			}
		})
	}
}

// TestSeqLayerInit checks the initializations against PyTorch's: weights and biases uniform
// on ±1/√fan_in, with fan_in the kernel taps times the input channels for convolutions and
// the hidden width for the GRU. For n draws of U(−b, b) the largest |w| exceeds
// b(1 − 10/n) with probability 1 − e⁻¹⁰, and the mean square is b²/3 within 5 standard
// errors (the variance of w² is 4b⁴/45).
func TestSeqLayerInit(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	conv1 := NewConv1D(rng, "c", Conv1DConfig{Channels: 16, Length: 40, Kernel: 5}, 64)
	conv2 := NewConv2D(rng, "c", Conv2DConfig{Channels: 8, Height: 6, Width: 6, Kernel: [2]int{3, 3}}, 64)
	gru := NewGRU(rng, "g", 4, 50)
	cases := []struct {
		name  string
		p     *Param
		bound float64
	}{
		{"Conv1D.W", conv1.W, 1 / math.Sqrt(80)}, {"Conv1D.B", conv1.B, 1 / math.Sqrt(80)},
		{"Conv2D.W", conv2.W, 1 / math.Sqrt(72)},
		{"GRU.Wi", gru.Wi, 1 / math.Sqrt(50)}, {"GRU.Wh", gru.Wh, 1 / math.Sqrt(50)}, {"GRU.Bh", gru.Bh, 1 / math.Sqrt(50)},
	}
	for _, c := range cases {
		n := float64(len(c.p.Data))
		top, ms := 0.0, 0.0
		for _, v := range c.p.Data {
			top = math.Max(top, math.Abs(v))
			ms += v * v / n
		}
		b := c.bound
		if top > b || top < b*(1-10/n) {
			t.Errorf("%s: largest |w| = %.5f, want just below %.5f", c.name, top, b)
		}
		if se := math.Sqrt(4 * b * b * b * b / 45 / n); math.Abs(ms-b*b/3) > 5*se {
			t.Errorf("%s: mean square %.3g, want %.3g ± %.2g", c.name, ms, b*b/3, 5*se)
		}
	}
	ln := NewLayerNorm("ln", 5)
	for i := range ln.Gain.Data {
		if ln.Gain.Data[i] != 1 || ln.Bias.Data[i] != 0 || ln.Eps != 1e-5 {
			t.Fatalf("LayerNorm starts with gain %v, bias %v, eps %v; want 1, 0, 1e-5", ln.Gain.Data, ln.Bias.Data, ln.Eps)
		}
	}
}

// TestGRULast checks that Last is the final state: the last Hidden columns of Forward.
func TestGRULast(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	g := NewGRU(rng, "g", 2, 3)
	x := randVar(rng, 4, 12, -1, 1)
	tp := NewTape()
	all, last := g.Forward(tp, x, 6), g.Last(tp, x, 6)
	for i := 0; i < 4; i++ {
		for j := 0; j < 3; j++ {
			if last.At(i, j) != all.At(i, 15+j) {
				t.Fatalf("Last[%d][%d] = %v, final state %v", i, j, last.At(i, j), all.At(i, 15+j))
			}
		}
	}
}
