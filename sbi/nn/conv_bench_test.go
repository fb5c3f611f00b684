package nn

import (
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/sbi/internal/cputime"
)

// The convolution benchmarks have PyTorch twins in tools/benchmarks/torch_reference.py (the
// same shapes, NCL/NCHW there, channels-last here): the first and second layers of a small
// CNN embedding, on a batch of 200 series of 100 steps with 2 channels (kernel 5, padding 2)
// and on 64 images of 28×28 pixels with 1 channel (kernel 3×3, padding 1).

type convBench struct {
	name      string
	n, in, cw int // batch, input width, output channels
	taps      int
	run       func(tp *Tape, x, w, b *Tensor) *Tensor
	run32     func(tp *Tape, x *Tensor32, w, b *Tensor) *Tensor32
}

func conv1DBench(cin, cout int) convBench {
	cfg := Conv1DConfig{Channels: cin, Length: 100, Kernel: 5, Padding: 2}
	return convBench{n: 200, in: 100 * cin, cw: cout, taps: 5 * cin,
		run:   func(tp *Tape, x, w, b *Tensor) *Tensor { return tp.Conv1D(x, w, b, cfg) },
		run32: func(tp *Tape, x *Tensor32, w, b *Tensor) *Tensor32 { return tp.Conv1D32(x, w, b, cfg) }}
}

func conv2DBench(cin, cout int) convBench {
	cfg := Conv2DConfig{Channels: cin, Height: 28, Width: 28, Kernel: [2]int{3, 3}, Padding: [2]int{1, 1}}
	return convBench{n: 64, in: 28 * 28 * cin, cw: cout, taps: 9 * cin,
		run:   func(tp *Tape, x, w, b *Tensor) *Tensor { return tp.Conv2D(x, w, b, cfg) },
		run32: func(tp *Tape, x *Tensor32, w, b *Tensor) *Tensor32 { return tp.Conv2D32(x, w, b, cfg) }}
}

// benchConv times the forward pass alone (backward false, no gradients recorded) or the
// forward and backward passes with gradients for the input, the weights and the bias.
func benchConv(b *testing.B, c convBench, backward bool) {
	rng := rand.New(rand.NewPCG(1, 1))
	x0 := randVar(rng, c.n, c.in, -1, 1)
	w, bias := randVar(rng, c.taps, c.cw, -0.3, 0.3), randVar(rng, 1, c.cw, -0.3, 0.3)
	tp := NewTape()
	tp.NoGrad = !backward
	var dy []float64
	step := func() {
		x := tp.Variable(x0.Rows, x0.Cols, x0.Data)
		y := c.run(tp, x, w, bias)
		if backward {
			if dy == nil {
				dy = make([]float64, y.Len())
				for i := range dy {
					dy[i] = rng.NormFloat64()
				}
			}
			tp.BackwardWith(y, dy)
			w.ZeroGrad()
			bias.ZeroGrad()
		}
		tp.Reset()
	}
	step()
	cputime.Report(b, step)
}

func BenchmarkConv1DForward(b *testing.B)         { benchConv(b, conv1DBench(2, 16), false) }
func BenchmarkConv1DForwardBackward(b *testing.B) { benchConv(b, conv1DBench(2, 16), true) }
func BenchmarkConv1DLayer2Forward(b *testing.B)   { benchConv(b, conv1DBench(16, 32), false) }
func BenchmarkConv1DLayer2ForwardBackward(b *testing.B) {
	benchConv(b, conv1DBench(16, 32), true)
}
func BenchmarkConv2DForward(b *testing.B)         { benchConv(b, conv2DBench(1, 16), false) }
func BenchmarkConv2DForwardBackward(b *testing.B) { benchConv(b, conv2DBench(1, 16), true) }
func BenchmarkConv2DLayer2Forward(b *testing.B)   { benchConv(b, conv2DBench(16, 32), false) }
func BenchmarkConv2DLayer2ForwardBackward(b *testing.B) {
	benchConv(b, conv2DBench(16, 32), true)
}

// BenchmarkMaxPool1D times the max pooling of sbi's CNNEmbedding after its first layer: 128
// series of 100 positions with 6 channels, windows of 2, forward and backward.
func BenchmarkMaxPool1D(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	x0 := randVar(rng, 128, 100*6, -1, 1)
	cfg := Conv1DConfig{Channels: 6, Length: 100, Kernel: 2}
	tp := NewTape()
	step := func() {
		x := tp.Variable(x0.Rows, x0.Cols, x0.Data)
		tp.Backward(tp.Sum(tp.MaxPool1D(x, cfg)))
		tp.Reset()
	}
	step()
	cputime.Report(b, step)
}

// BenchmarkConv1DOutputFill and BenchmarkConv2DOutputFill time writing the output of the
// first layers' forward passes and nothing else (Conv1DForward: 200×100×16 values, 2.56 MB;
// Conv2DForward: 64×28×28×16, 6.4 MB): the floor of those passes in float64, set by memory,
// not by the arithmetic. tools/benchmarks sets them beside PyTorch's float32 forward passes.
func BenchmarkConv1DOutputFill(b *testing.B) { benchmarkFill(b, 200*100*16) }

func BenchmarkConv2DOutputFill(b *testing.B) { benchmarkFill(b, 64*28*28*16) }

func benchmarkFill(b *testing.B, n int) {
	y := make([]float64, n)
	b.SetBytes(int64(8 * n))
	cputime.Report(b, func() {
		for i := range y {
			y[i] = 0.5
		}
	})
}

// benchConv32 is benchConv on the float32 path (Conv1D32, Conv2D32): a float32 input held
// outside the tape, as PyTorch's twins hold theirs (its gradient cleared every step), the
// layer's float64 parameters cast inside the op.
func benchConv32(b *testing.B, c convBench, backward bool) {
	rng := rand.New(rand.NewPCG(1, 1))
	x0 := make([]float32, c.n*c.in)
	for i := range x0 {
		x0[i] = float32(2*rng.Float64() - 1)
	}
	w, bias := randVar(rng, c.taps, c.cw, -0.3, 0.3), randVar(rng, 1, c.cw, -0.3, 0.3)
	x := &Tensor32{Rows: c.n, Cols: c.in, Data: x0} // the input, as PyTorch's twin holds it
	if backward {
		x.Grad = make([]float32, len(x0))
	}
	tp := NewTape()
	tp.NoGrad = !backward
	var dy []float32
	step := func() {
		y := c.run32(tp, x, w, bias)
		if backward {
			if dy == nil {
				dy = make([]float32, y.Len())
				for i := range dy {
					dy[i] = float32(rng.NormFloat64())
				}
			}
			clear(x.Grad)
			tp.BackwardWith32(y, dy)
			w.ZeroGrad()
			bias.ZeroGrad()
		}
		tp.Reset()
	}
	step()
	cputime.Report(b, step)
}

func BenchmarkConv1D32Forward(b *testing.B)         { benchConv32(b, conv1DBench(2, 16), false) }
func BenchmarkConv1D32ForwardBackward(b *testing.B) { benchConv32(b, conv1DBench(2, 16), true) }
func BenchmarkConv1D32Layer2Forward(b *testing.B)   { benchConv32(b, conv1DBench(16, 32), false) }
func BenchmarkConv1D32Layer2ForwardBackward(b *testing.B) {
	benchConv32(b, conv1DBench(16, 32), true)
}
func BenchmarkConv2D32Forward(b *testing.B)         { benchConv32(b, conv2DBench(1, 16), false) }
func BenchmarkConv2D32ForwardBackward(b *testing.B) { benchConv32(b, conv2DBench(1, 16), true) }
func BenchmarkConv2D32Layer2Forward(b *testing.B)   { benchConv32(b, conv2DBench(16, 32), false) }
func BenchmarkConv2D32Layer2ForwardBackward(b *testing.B) {
	benchConv32(b, conv2DBench(16, 32), true)
}
