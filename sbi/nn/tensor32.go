package nn

import (
	"fmt"
)

// ---- the float32 path of convolution stacks ----
//
// Tensors hold float64 (see the package doc, "Numbers"); a stack of convolutions, whose
// products are nearly all of their time, can run in float32 instead: To32 casts its input,
// Conv1D32 and Conv2D32 convolve with the layer's float64 parameters (cast inside the op,
// their gradients added to the float64 Grad), ReLU32 and MaxPool1D32 or MaxPool2D32 sit
// between them, and To64 casts the result back for the rest of the network. Every cast is differentiable, so the stack is
// one piece of the tape: gradients flow through it in float32 and leave it in float64.

// Tensor32 is a dense row-major matrix of float32 values, the tensor of the float32 path:
// the layout of Tensor (element (i, j) is Data[i*Cols+j], channels-last for series and
// images), Grad receiving the gradient when non-nil. Tensor32s returned by the tape are owned
// by it and reused after Reset.
type Tensor32 struct {
	Rows, Cols int
	Data       []float32
	Grad       []float32

	gbuf []float32
}

// Len returns Rows*Cols.
func (t *Tensor32) Len() int { return t.Rows * t.Cols }

// tensor32 returns a rows×cols tape-owned float32 tensor; its data is not cleared, its
// gradient, if requested, is zeroed.
func (tp *Tape) tensor32(rows, cols int, grad bool) *Tensor32 {
	t := nextOf(&tp.tensors32, &tp.nt32)
	t.Rows, t.Cols = rows, cols
	t.Data, t.Grad = resize(t.Data, &t.gbuf, rows*cols, grad)
	return t
}

// scratch32 returns a tape-owned float32 slice of length n, valid until Reset. Not cleared.
func (tp *Tape) scratch32(n int) []float32 { return nextBuf(&tp.floats32, &tp.nf32, n) }

// record32 appends a node whose result is the float32 tensor out.
func (tp *Tape) record32(back func(*node), out *Tensor32, a32 *Tensor32, b, c *Tensor) *node {
	nd := tp.record(back, nil, nil, b, c)
	nd.out32, nd.a32 = out, a32
	return nd
}

// Variable32 returns a tape-owned float32 tensor holding a copy of data that receives
// gradients (unless the tape is NoGrad).
func (tp *Tape) Variable32(rows, cols int, data []float32) *Tensor32 {
	if len(data) != rows*cols {
		panic(fmt.Sprintf("nn: Variable32 %d×%d needs %d values, got %d", rows, cols, rows*cols, len(data)))
	}
	t := tp.tensor32(rows, cols, !tp.NoGrad)
	copy(t.Data, data)
	return t
}

// To32 returns x rounded to float32 (to nearest, as Go converts); the gradient flows back
// unchanged into x's float64 Grad.
func (tp *Tape) To32(x *Tensor) *Tensor32 {
	gr := tp.grads(x)
	out := tp.tensor32(x.Rows, x.Cols, gr)
	convert(out.Data, x.Data)
	if gr {
		tp.record(backTo32, nil, x, nil, nil).out32 = out
	}
	return out
}

func backTo32(nd *node) { addConverted(nd.a.Grad, nd.out32.Grad) }

// To64 returns x as float64 (exactly); its gradient is rounded to float32 on the way back.
func (tp *Tape) To64(x *Tensor32) *Tensor {
	gr := !tp.NoGrad && x.Grad != nil
	out := tp.tensor(x.Rows, x.Cols, gr)
	convert(out.Data, x.Data)
	if gr {
		tp.record(backTo64, out, nil, nil, nil).a32 = x
	}
	return out
}

func backTo64(nd *node) { addConverted(nd.a32.Grad, nd.out.Grad) }

// convert sets dst to src converted (rounded to nearest where it narrows).
func convert[D, S float32 | float64](dst []D, src []S) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = D(v)
	}
}

// addConverted adds src, converted, to dst.
func addConverted[D, S float32 | float64](dst []D, src []S) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] += D(v)
	}
}

// ReLU32 returns max(x, 0) elementwise (NaN stays NaN, as ReLU); its gradient passes where
// x > 0.
func (tp *Tape) ReLU32(x *Tensor32) *Tensor32 {
	gr := !tp.NoGrad && x.Grad != nil
	out := tp.tensor32(x.Rows, x.Cols, gr)
	for i, v := range x.Data {
		out.Data[i] = max(v, 0)
	}
	if gr {
		tp.record32(backReLU32, out, x, nil, nil)
	}
	return out
}

func backReLU32(nd *node) {
	x, g := nd.a32.Data, nd.a32.Grad
	for i, d := range nd.out32.Grad {
		if x[i] > 0 {
			g[i] += d
		}
	}
}

// BackwardWith32 propagates the upstream gradient grad of the float32 result out (same
// shape) through the tape: BackwardWith for a float32 output.
func (tp *Tape) BackwardWith32(out *Tensor32, grad []float32) {
	if len(grad) != out.Len() {
		panic(fmt.Sprintf("nn: BackwardWith32: gradient has %d values, output %d×%d", len(grad), out.Rows, out.Cols))
	}
	if out.Grad == nil {
		return
	}
	addConverted(out.Grad, grad)
	tp.backwardFrom()
}

// MaxPool1D32 is MaxPool1D on float32: the largest value of each channel in each window,
// the gradient to the first position holding it, NaN counting as the largest value.
func (tp *Tape) MaxPool1D32(x *Tensor32, cfg Conv1DConfig) *Tensor32 {
	if cfg.Causal {
		panic("nn: MaxPool1D32: Causal is for convolutions, want false for pooling")
	}
	g := cfg.geom("MaxPool1D32", true)
	return tp.maxPool32("MaxPool1D32", x, &g)
}

// MaxPool2D32 is MaxPool2D on float32 (see MaxPool1D32).
func (tp *Tape) MaxPool2D32(x *Tensor32, cfg Conv2DConfig) *Tensor32 {
	g := cfg.geom("MaxPool2D32", true)
	return tp.maxPool32("MaxPool2D32", x, &g)
}

func (tp *Tape) maxPool32(op string, x *Tensor32, g *convGeom) *Tensor32 {
	if x.Cols != g.in() {
		panic(fmt.Sprintf("nn: %s: input %d×%d, want %d columns (%d×%d positions × %d channels)", op, x.Rows, x.Cols, g.in(), g.h, g.w, g.c))
	}
	gr := !tp.NoGrad && x.Grad != nil
	n, per := x.Rows, g.out()*g.c
	out := tp.tensor32(n, per, gr)
	var arg []int
	if gr {
		arg = tp.scratchInts(n * per)
	}
	series := g.h == 1 && g.kh == 1 && g.pl+g.pr == 0 // one row, every window whole
	for i := 0; i < n; i++ {
		if series {
			g.maxSeries32(x.Data[i*g.in():(i+1)*g.in()], out.Data[i*per:(i+1)*per], arg, i*per, i*g.in())
			continue
		}
		for oy := 0; oy < g.oh; oy++ {
			for ox := 0; ox < g.ow; ox++ {
				o := i*per + (oy*g.ow+ox)*g.c
				g.maxWindow32(x.Data, out.Data[o:o+g.c], arg, o, oy, ox, i*g.in())
			}
		}
	}
	if gr {
		tp.record32(backMaxPool32, out, x, nil, nil).idx = arg
	}
	return out
}

// maxWindow32 sets y (one output position's channels) to the largest value of each channel
// in the window of output (oy, ox) of the example starting at x[offset], and, when arg is
// not nil, arg[o + ch] to its index: the first position holding the maximum, in order of
// rows then columns, NaN counting as the largest value (the first NaN wins).
func (g *convGeom) maxWindow32(x, y []float32, arg []int, o, oy, ox, offset int) {
	c := g.c
	y0, y1, x0, x1 := g.poolWindow(oy, ox)
	for ch := range y {
		at := offset + (y0*g.w+x0)*c + ch
		best := x[at]
		for iy := y0; iy < y1; iy++ {
			for p := iy*g.w + x0; p < iy*g.w+x1; p++ {
				k := offset + p*c + ch
				if v := x[k]; v > best || v != v && best == best {
					best, at = v, k
				}
			}
		}
		y[ch] = best
		if arg != nil {
			arg[o+ch] = at
		}
	}
}

// maxSeries32 is maxWindow32 for every output of a series xi without padding (the example
// starting at offset of the batch), whose windows are whole: one loop, no call per window.
func (g *convGeom) maxSeries32(xi, y []float32, arg []int, o, offset int) {
	c, step, span := g.c, g.sw*g.c, g.kw*g.c
	for ox := 0; ox < g.ow; ox++ {
		win := xi[ox*step : ox*step+span]
		yo := y[ox*c : (ox+1)*c]
		for ch := range yo {
			best, at := win[ch], ch
			for k := ch + c; k < len(win); k += c { // without branches: the winner is data
				v := win[k]
				take := b2i(v > best) | b2i(v != v)&b2i(best == best)
				best, at = max(best, v), at+(k-at)*take
			}
			yo[ch] = win[at] // the winner itself: max(−0, +0) is +0 whichever came first
			if arg != nil {
				arg[o+ox*c+ch] = offset + ox*step + at
			}
		}
	}
}

// b2i is 1 for true and 0 for false (a flag, not a branch).
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func backMaxPool32(nd *node) {
	g, d := nd.a32.Grad, nd.out32.Grad
	for k, p := range nd.idx {
		g[p] += d[k]
	}
}
