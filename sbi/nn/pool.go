package nn

import "fmt"

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
// position holding the maximum; NaN counts as the largest value.
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
	n, c, per := x.Rows, g.c, g.out()*g.c
	out := tp.tensor(n, per, gr)
	var arg []int
	if isMax {
		arg = tp.scratchInts(n * per)
	}
	inv := 1 / float64(g.kh*g.kw)
	for i := 0; i < n; i++ {
		xi, yi := x.Row(i), out.Row(i)
		for oy := 0; oy < g.oh; oy++ {
			for ox := 0; ox < g.ow; ox++ {
				y := yi[(oy*g.ow+ox)*c : (oy*g.ow+ox+1)*c]
				if isMax {
					a := arg[i*per+(oy*g.ow+ox)*c : i*per+(oy*g.ow+ox+1)*c]
					for j := range a {
						a[j] = -1
					}
					g.eachTap(oy, ox, func(p int) {
						for ch, v := range xi[p*c : (p+1)*c] {
							if a[ch] < 0 || v > y[ch] || (v != v && y[ch] == y[ch]) {
								y[ch], a[ch] = v, i*g.in()+p*c+ch
							}
						}
					})
					continue
				}
				clear(y)
				g.eachTap(oy, ox, func(p int) {
					for ch, v := range xi[p*c : (p+1)*c] {
						y[ch] += v
					}
				})
				for ch := range y {
					y[ch] *= inv
				}
			}
		}
	}
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

// eachTap calls f with the position (iy·w + ix) of every input position of the window of
// output (oy, ox), in order, skipping padding. It is inlined into the loops above.
func (g *convGeom) eachTap(oy, ox int, f func(p int)) {
	for ky := 0; ky < g.kh; ky++ {
		iy := oy*g.sh + ky*g.dh - g.pt
		if iy < 0 || iy >= g.h {
			continue
		}
		for kx := 0; kx < g.kw; kx++ {
			ix := ox*g.sw + kx*g.dw - g.pl
			if ix >= 0 && ix < g.w {
				f(iy*g.w + ix)
			}
		}
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
				g.eachTap(oy, ox, func(p int) {
					d := gx[p*c : (p+1)*c]
					for ch, v := range gy {
						d[ch] += v * nd.k
					}
				})
			}
		}
	}
}

// GlobalMaxPool returns, for each example and channel, the largest value over all positions:
// x is n × P·channels (channels-last, any number P of positions, 1-D or 2-D), the result
// n × channels. The gradient goes to the first position holding the maximum.
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
