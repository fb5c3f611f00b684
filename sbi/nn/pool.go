package nn

import (
	"fmt"
	"math"

	"github.com/gosbi/gosbi/sbi/internal/kernels"
	"github.com/gosbi/gosbi/sbi/internal/par"
)

// ---- pooling over positions ----
//
// Pooling reduces each window of positions to one value per channel; inputs and outputs are
// channels-last (see the package doc) and windows are described by the convolutions'
// configurations, with a Stride of 0 meaning the kernel's width (non-overlapping windows, as in
// PyTorch) and Dilation 0. Padding adds positions that a maximum ignores and a mean counts
// as zeros (PyTorch's count_include_pad); it may be at most half the kernel, so that every
// window holds an input position.

// MaxPool1D returns the largest value of each channel in each window: x is n ×
// Length·Channels, the result n × OutLength·Channels. The gradient goes to the first
// position holding the maximum; NaN counts as the largest value, so a window holding NaN
// gives NaN, as in PyTorch, and its gradient goes to the first NaN.
func (tp *Tape) MaxPool1D(x *Tensor, cfg Conv1DConfig) *Tensor {
	if cfg.Causal {
		panic("nn: MaxPool1D: Causal is for convolutions, want false for pooling")
	}
	g := cfg.geom("MaxPool1D", true)
	return tp.pool("MaxPool1D", x, &g, true)
}

// MeanPool1D returns the mean of each channel over each window (padding counted as zeros):
// x is n × Length·Channels, the result n × OutLength·Channels.
func (tp *Tape) MeanPool1D(x *Tensor, cfg Conv1DConfig) *Tensor {
	if cfg.Causal {
		panic("nn: MeanPool1D: Causal is for convolutions, want false for pooling")
	}
	g := cfg.geom("MeanPool1D", true)
	return tp.pool("MeanPool1D", x, &g, false)
}

// MaxPool2D is MaxPool1D over windows of pixels: x is n × Height·Width·Channels, the result
// n × OutHeight·OutWidth·Channels.
func (tp *Tape) MaxPool2D(x *Tensor, cfg Conv2DConfig) *Tensor {
	g := cfg.geom("MaxPool2D", true)
	return tp.pool("MaxPool2D", x, &g, true)
}

// MeanPool2D is MeanPool1D over windows of pixels.
func (tp *Tape) MeanPool2D(x *Tensor, cfg Conv2DConfig) *Tensor {
	g := cfg.geom("MeanPool2D", true)
	return tp.pool("MeanPool2D", x, &g, false)
}

func (tp *Tape) pool(op string, x *Tensor, g *convGeom, isMax bool) *Tensor {
	if x.Cols != g.in() {
		panic(fmt.Sprintf("nn: %s: input %d×%d, want %d columns (%d×%d positions × %d channels)", op, x.Rows, x.Cols, g.in(), g.h, g.w, g.c))
	}
	gr := tp.grads(x)
	n, per := x.Rows, g.out()*g.c
	out := tp.tensor(n, per, gr)
	var arg []int
	if isMax {
		arg = tp.scratchInts(n * per)
	}
	inv := 1 / float64(g.kh*g.kw)
	job := poolPasses.Get()
	*job = poolPass{g: *g, x: x.Data, out: out.Data, arg: arg, inv: inv}
	par.Range(n, max(1, poolGrain/g.in()), job)
	*job = poolPass{}
	poolPasses.Put(job)
	if gr {
		nd := tp.record(backPool, out, x, nil, nil)
		nd.idx = arg
		if !isMax {
			nd.k = inv
			nd.s3 = tp.scratch(convGeomLen)
			g.store(nd.s3)
		}
	}
	return out
}

// poolWindow returns the input rows y0…y1−1 and columns x0…x1−1 of the window of output
// (oy, ox), padding left out; pooling has no dilation, so they are contiguous, and the
// padding rule (at most half the kernel) leaves every window at least one position.
func (g *convGeom) poolWindow(oy, ox int) (y0, y1, x0, x1 int) {
	y0, x0 = oy*g.sh-g.pt, ox*g.sw-g.pl
	return max(0, y0), min(g.h, y0+g.kh), max(0, x0), min(g.w, x0+g.kw)
}

// poolGrain is about the least number of input values a goroutine pools.
const poolGrain = 1 << 16

// poolPass pools the examples of a batch, split over the workers: max when arg is not nil
// (arg receives the index of each maximum), else mean. Examples are independent, so the
// result does not depend on the split.
type poolPass struct {
	g      convGeom
	x, out []float64
	arg    []int
	inv    float64
}

var poolPasses par.FreeList[poolPass]

func (p *poolPass) Do(lo, hi int) {
	g := &p.g
	in, c, per := g.in(), g.c, g.out()*g.c
	series := g.h == 1 && g.kh == 1 && g.pt+g.pb == 0 && g.pl+g.pr == 0 // one row, every window whole
	for i := lo; i < hi; i++ {
		xi, yi := p.x[i*in:(i+1)*in], p.out[i*per:(i+1)*per]
		if series && p.arg != nil {
			g.maxSeries(xi, yi, p.arg[i*per:(i+1)*per], i*in)
			continue
		}
		for oy := 0; oy < g.oh; oy++ {
			for ox := 0; ox < g.ow; ox++ {
				o := (oy*g.ow + ox) * c
				if p.arg != nil {
					g.maxWindow(xi, yi[o:o+c], p.arg[i*per+o:i*per+o+c], oy, ox, i*in)
				} else {
					g.meanWindow(xi, yi[o:o+c], oy, ox, p.inv)
				}
			}
		}
	}
}

// maxWindow sets y (one output position's c channels) to the largest input value of each
// channel in the window of output (oy, ox) of the example xi, and arg to its index in the
// batch (offset: the example's first index): the first position holding the maximum, in
// order of rows then columns, wins, and NaN counts as the largest value (kernels.MaxStep, which
// selects without branching).
func (g *convGeom) maxWindow(xi, y []float64, arg []int, oy, ox, offset int) {
	c := g.c
	y0, y1, x0, x1 := g.poolWindow(oy, ox)
	first := y0*g.w + x0
	for ch := range y[:c] {
		best, at := math.Float64bits(xi[first*c+ch]), offset+first*c+ch
		for iy, from := y0, x0+1; iy < y1; iy, from = iy+1, x0 { // the first position is taken
			for p := iy*g.w + from; p < iy*g.w+x1; p++ {
				best, at = kernels.MaxStep(best, at, xi[p*c+ch], offset+p*c+ch)
			}
		}
		y[ch], arg[ch] = math.Float64frombits(best), at
	}
}

// maxSeries is maxWindow for every output of a series without padding, whose windows are
// whole: the loops over positions and channels in one place, without a call per window.
func (g *convGeom) maxSeries(xi, y []float64, arg []int, offset int) {
	c, kw, step := g.c, g.kw, g.sw*g.c
	if kw == 2 && g.sw == 2 { // pairs (sbi's CNNEmbedding pools by 2): a vector kernel
		kernels.MaxPairs(y[:g.ow*c], arg[:g.ow*c], xi[:2*g.ow*c], c, g.ow, offset)
		return
	}
	for ox := 0; ox < g.ow; ox++ {
		base := ox * step
		yo, ao := y[ox*c:(ox+1)*c], arg[ox*c:(ox+1)*c]
		for ch := range yo {
			best, at := math.Float64bits(xi[base+ch]), offset+base+ch
			for p := base + c + ch; p < base+kw*c; p += c {
				best, at = kernels.MaxStep(best, at, xi[p], offset+p)
			}
			yo[ch], ao[ch] = math.Float64frombits(best), at
		}
	}
}

// meanWindow sets y to inv times the sum of each channel over the window of output (oy, ox)
// of the example xi, added in order of rows then columns (padding counts as zeros: inv is
// one over the whole kernel).
func (g *convGeom) meanWindow(xi, y []float64, oy, ox int, inv float64) {
	c := g.c
	y0, y1, x0, x1 := g.poolWindow(oy, ox)
	clear(y)
	for iy := y0; iy < y1; iy++ {
		for p := iy*g.w + x0; p < iy*g.w+x1; p++ {
			for ch, v := range xi[p*c : (p+1)*c] {
				y[ch] += v
			}
		}
	}
	for ch := range y {
		y[ch] *= inv
	}
}

func backPool(nd *node) {
	x, out := nd.a, nd.out
	if nd.idx != nil { // maximum: the gradient goes to the position that won
		for k, p := range nd.idx {
			x.Grad[p] += out.Grad[k]
		}
		return
	}
	var g convGeom
	g.load(nd.s3)
	c, per := g.c, g.out()*g.c
	for i := 0; i < x.Rows; i++ {
		gx := x.Grad[i*g.in() : (i+1)*g.in()]
		for oy := 0; oy < g.oh; oy++ {
			for ox := 0; ox < g.ow; ox++ {
				gy := out.Grad[i*per+(oy*g.ow+ox)*c : i*per+(oy*g.ow+ox+1)*c]
				y0, y1, x0, x1 := g.poolWindow(oy, ox)
				for iy := y0; iy < y1; iy++ {
					for p := iy*g.w + x0; p < iy*g.w+x1; p++ {
						d := gx[p*c : (p+1)*c]
						for ch, v := range gy {
							d[ch] += v * nd.k
						}
					}
				}
			}
		}
	}
}

// GlobalMaxPool returns, for each example and channel, the largest value over all positions:
// x is n × P·channels (channels-last, any number P of positions, 1-D or 2-D), the result
// n × channels. The gradient goes to the first position holding the maximum; NaN counts as
// the largest value (the first NaN gets the gradient).
func (tp *Tape) GlobalMaxPool(x *Tensor, channels int) *Tensor {
	return tp.globalPool("GlobalMaxPool", x, channels, true)
}

// GlobalMeanPool returns, for each example and channel, the mean over all positions: x is
// n × P·channels, the result n × channels.
func (tp *Tape) GlobalMeanPool(x *Tensor, channels int) *Tensor {
	return tp.globalPool("GlobalMeanPool", x, channels, false)
}

func (tp *Tape) globalPool(op string, x *Tensor, c int, isMax bool) *Tensor {
	if c < 1 || x.Cols%c != 0 || x.Cols == 0 {
		panic(fmt.Sprintf("nn: %s: %d×%d input with %d channels, want a positive number of positions × channels columns", op, x.Rows, x.Cols, c))
	}
	gr := tp.grads(x)
	out := tp.tensor(x.Rows, c, gr)
	positions := x.Cols / c
	var arg []int
	if isMax {
		arg = tp.scratchInts(x.Rows * c)
	}
	for i := 0; i < x.Rows; i++ {
		xi, y := x.Row(i), out.Row(i)
		copy(y, xi[:c])
		if isMax {
			a := arg[i*c : (i+1)*c]
			for ch := range a {
				a[ch] = i*x.Cols + ch
			}
			for p := 1; p < positions; p++ {
				for ch, v := range xi[p*c : (p+1)*c] {
					if v > y[ch] || (v != v && y[ch] == y[ch]) {
						y[ch], a[ch] = v, i*x.Cols+p*c+ch
					}
				}
			}
			continue
		}
		for p := 1; p < positions; p++ {
			for ch, v := range xi[p*c : (p+1)*c] {
				y[ch] += v
			}
		}
		inv := 1 / float64(positions)
		for ch := range y {
			y[ch] *= inv
		}
	}
	if gr {
		nd := tp.record(backGlobalPool, out, x, nil, nil)
		nd.idx, nd.i = arg, c
	}
	return out
}

func backGlobalPool(nd *node) {
	x, out := nd.a, nd.out
	if nd.idx != nil {
		for k, p := range nd.idx {
			x.Grad[p] += out.Grad[k]
		}
		return
	}
	c := nd.i
	inv := 1 / float64(x.Cols/c)
	for i := 0; i < x.Rows; i++ {
		gy := out.Grad[i*c : (i+1)*c]
		gx := x.Grad[i*x.Cols : (i+1)*x.Cols]
		for p := 0; p < len(gx); p += c {
			for ch, v := range gy {
				gx[p+ch] += v * inv
			}
		}
	}
}
