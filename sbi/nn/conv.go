package nn

import (
	"fmt"
	"math"

	"github.com/gosbi/gosbi/sbi/internal/kernels"
	"github.com/gosbi/gosbi/sbi/internal/par"
	"gonum.org/v1/gonum/floats"
)

// ---- convolutions ----
//
// A convolution is a Linear layer applied to the patches of its input: im2col copies, for
// every output position, the window of input values it sees into one row of a matrix, and
// one matrix product with the weights gives every output channel at every position. Inputs
// are channels-last (see the package doc), so the rows of the product are already the output
// in the same layout: no transposition on either side.
//
// For output position (oy, ox) of example i and output channel o (Goodfellow et al. 2016,
// eq. 9.4, as cross-correlation, the convention of every deep-learning library):
//
//	y[i, oy, ox, o] = b[o] + Σ_{ky,kx,c} x[i, oy·sy + ky·dy − pt, ox·sx + kx·dx − pl, c] · W[(ky·kw + kx)·C + c, o],
//
// with zeros outside the input (padding). The gradients are those of the product, dW = colᵀ·dY
// and dcol = dY·Wᵀ, with dcol added back to the input positions it was copied from (col2im).
// Convolutions of unit strides without dilation skip the copy: their patches are overlapping
// rows of the padded input, which the own product kernels read in place (conv_inplace.go).
// The forward pass of convolutions of at most a dozen taps (first layers of a few channels)
// needs neither: a kernel reads the windows from the padded input with the weights in
// registers (conv_taps.go), and so does their weight gradient, with the gradient's partial
// sums in registers.

// Conv1DConfig is the shape of a 1-D convolution or pooling over series stored channels-last:
// a row of the input holds Length positions of Channels values each. Zero values of Stride
// and Dilation mean 1.
type Conv1DConfig struct {
	Channels int // input channels
	Length   int // input positions
	Kernel   int // window width
	Stride   int // step between windows; 0 means 1 (pooling: 0 means Kernel)
	Padding  int // zeros (pooling: ignored positions) added on both ends
	Dilation int // step between the taps of a window; 0 means 1 (convolution only)
	// Causal pads (Kernel−1)·Dilation zeros on the left only, so that output t sees inputs up
	// to t (a causal, or temporal, convolution); Padding must then be 0.
	Causal bool
}

// OutLength returns the number of output positions of the convolution,
// ⌊(Length + pads − Dilation·(Kernel−1) − 1)/Stride⌋ + 1.
func (c Conv1DConfig) OutLength() int { return c.geom("Conv1D", false).ow }

// PoolOutLength returns the number of output positions of the pooling (MaxPool1D,
// MeanPool1D), whose Stride of 0 means Kernel.
func (c Conv1DConfig) PoolOutLength() int { return c.geom("Pool1D", true).ow }

// Conv2DConfig is the shape of a 2-D convolution or pooling over images stored channels-last:
// a row of the input holds Height×Width pixels (row-major) of Channels values each. Pairs are
// (height, width); zero values of Stride and Dilation mean 1.
type Conv2DConfig struct {
	Channels      int    // input channels
	Height, Width int    // input pixels
	Kernel        [2]int // window
	Stride        [2]int // step between windows; 0 means 1 (pooling: 0 means the kernel's)
	Padding       [2]int // zeros (pooling: ignored pixels) added on both sides
	Dilation      [2]int // step between the taps of a window; 0 means 1 (convolution only)
}

// OutSize returns the output height and width of the convolution (see
// Conv1DConfig.OutLength for each).
func (c Conv2DConfig) OutSize() (height, width int) {
	g := c.geom("Conv2D", false)
	return g.oh, g.ow
}

// PoolOutSize returns the output height and width of the pooling (MaxPool2D, MeanPool2D),
// whose Stride of 0 means the kernel's.
func (c Conv2DConfig) PoolOutSize() (height, width int) {
	g := c.geom("Pool2D", true)
	return g.oh, g.ow
}

// convGeom is the geometry shared by the convolutions and poolings: 1-D ones are 2-D ones of
// height 1.
type convGeom struct {
	c, h, w        int // input channels, height, width
	kh, kw         int // kernel
	sh, sw         int // strides
	dh, dw         int // dilations
	pt, pb, pl, pr int // padding at the top, bottom, left, right
	oh, ow         int // output height, width
}

func (c Conv1DConfig) geom(op string, pool bool) convGeom {
	stride := c.Stride
	if stride == 0 && pool {
		stride = c.Kernel
	}
	g := convGeom{c: c.Channels, h: 1, w: c.Length, kh: 1, kw: c.Kernel, sh: 1, sw: or1(stride), dh: 1, dw: or1(c.Dilation),
		pl: c.Padding, pr: c.Padding}
	if c.Causal {
		if pool { // MaxPool1D and MeanPool1D refuse it too; PoolOutLength comes here alone
			panic(fmt.Sprintf("nn: %s: Causal is for convolutions, want false for pooling", op))
		}
		if c.Padding != 0 {
			panic(fmt.Sprintf("nn: %s: Causal with Padding %d, want 0 (a causal convolution pads the left by itself)", op, c.Padding))
		}
		g.pl, g.pr = (c.Kernel-1)*g.dw, 0
	}
	g.finish(op, pool, c.Stride, c.Dilation, 0)
	return g
}

func (c Conv2DConfig) geom(op string, pool bool) convGeom {
	sh, sw := c.Stride[0], c.Stride[1]
	if pool {
		if sh == 0 {
			sh = c.Kernel[0]
		}
		if sw == 0 {
			sw = c.Kernel[1]
		}
	}
	g := convGeom{c: c.Channels, h: c.Height, w: c.Width, kh: c.Kernel[0], kw: c.Kernel[1], sh: or1(sh), sw: or1(sw),
		dh: or1(c.Dilation[0]), dw: or1(c.Dilation[1]), pt: c.Padding[0], pb: c.Padding[0], pl: c.Padding[1], pr: c.Padding[1]}
	g.finish(op, pool, min(c.Stride[0], c.Stride[1]), min(c.Dilation[0], c.Dilation[1]), max(c.Dilation[0], c.Dilation[1]))
	return g
}

func or1(v int) int {
	if v == 0 {
		return 1
	}
	return v
}

// finish checks the geometry and sets the output size; stride and dilation are the smallest
// values given (negative ones are refused), dil2 the largest dilation.
func (g *convGeom) finish(op string, pool bool, stride, dilation, dil2 int) {
	switch {
	case g.c < 1 || g.h < 1 || g.w < 1:
		panic(fmt.Sprintf("nn: %s: %d channels of %d×%d positions, want each ≥ 1", op, g.c, g.h, g.w))
	case g.kh < 1 || g.kw < 1:
		panic(fmt.Sprintf("nn: %s: kernel %d×%d, want each side ≥ 1", op, g.kh, g.kw))
	case stride < 0 || dilation < 0:
		panic(fmt.Sprintf("nn: %s: negative stride or dilation, want ≥ 1 (or 0 for the default)", op))
	case g.pt < 0 || g.pl < 0:
		panic(fmt.Sprintf("nn: %s: negative padding %d×%d, want ≥ 0", op, g.pt, g.pl))
	case pool && (dilation > 1 || dil2 > 1):
		panic(fmt.Sprintf("nn: %s: dilation is for convolutions, want 0 for pooling", op))
	case pool && (2*g.pt > g.kh || 2*g.pl > g.kw):
		panic(fmt.Sprintf("nn: %s: padding %d×%d with kernel %d×%d, want at most half the kernel (a window of padding only has no value)", op, g.pt, g.pl, g.kh, g.kw))
	}
	spanH, spanW := g.dh*(g.kh-1)+1, g.dw*(g.kw-1)+1
	g.oh = (g.h+g.pt+g.pb-spanH)/g.sh + 1
	g.ow = (g.w+g.pl+g.pr-spanW)/g.sw + 1
	if g.h+g.pt+g.pb < spanH || g.w+g.pl+g.pr < spanW {
		panic(fmt.Sprintf("nn: %s: a window of %d×%d positions does not fit in %d×%d padded positions", op, spanH, spanW, g.h+g.pt+g.pb, g.w+g.pl+g.pr))
	}
}

// in returns the input width of a row, out the output positions of an example.
func (g *convGeom) in() int  { return g.h * g.w * g.c }
func (g *convGeom) out() int { return g.oh * g.ow }

// taps returns the number of input values of one window, kh·kw·c.
func (g *convGeom) taps() int { return g.kh * g.kw * g.c }

// identity reports whether im2col would copy the input as it is (a 1×1 kernel, unit strides,
// no padding): then the input itself is the patch matrix.
func (g *convGeom) identity() bool {
	return g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.pt == 0 && g.pb == 0 && g.pl == 0 && g.pr == 0
}

// Conv1D returns the 1-D convolution of the series x (n × Length·Channels, channels-last) with
// the weights w (Kernel·Channels × Out, row k·Channels + c for tap k of channel c: the
// transpose of PyTorch's weight.permute(0, 2, 1).reshape(Out, −1)) and the bias (1×Out, or
// nil): n × OutLength·Out, channels-last. InitLinear initializes w and the bias as
// PyTorch initializes a convolution (uniform on ±1/√(Kernel·Channels)).
func (tp *Tape) Conv1D(x, w, bias *Tensor, cfg Conv1DConfig) *Tensor {
	g := cfg.geom("Conv1D", false)
	return tp.conv("Conv1D", x, w, bias, &g)
}

// Conv2D returns the 2-D convolution of the images x (n × Height·Width·Channels,
// channels-last) with the weights w (Kernel[0]·Kernel[1]·Channels × Out, row
// (ky·Kernel[1] + kx)·Channels + c) and the bias (1×Out, or nil): n × OutHeight·OutWidth·Out,
// channels-last.
func (tp *Tape) Conv2D(x, w, bias *Tensor, cfg Conv2DConfig) *Tensor {
	g := cfg.geom("Conv2D", false)
	return tp.conv("Conv2D", x, w, bias, &g)
}

// check panics unless an input of rows×cols, the weights and the bias (nil or not) fit the
// convolution.
func (g *convGeom) check(op string, rows, cols int, w, bias *Tensor) {
	if cols != g.in() {
		panic(fmt.Sprintf("nn: %s: input %d×%d, want %d columns (%d×%d positions × %d channels)", op, rows, cols, g.in(), g.h, g.w, g.c))
	}
	if w.Rows != g.taps() {
		panic(fmt.Sprintf("nn: %s: weights %d×%d, want %d rows (kernel %d×%d × %d channels)", op, w.Rows, w.Cols, g.taps(), g.kh, g.kw, g.c))
	}
	if bias != nil && (bias.Rows != 1 || bias.Cols != w.Cols) {
		panic(fmt.Sprintf("nn: %s: bias %d×%d, want 1×%d", op, bias.Rows, bias.Cols, w.Cols))
	}
}

func (tp *Tape) conv(op string, x, w, bias *Tensor, g *convGeom) *Tensor {
	g.check(op, x.Rows, x.Cols, w, bias)
	gr := tp.grads(x, w, bias)
	n, cout, taps := x.Rows, w.Cols, g.taps()
	out := tp.tensor(n, g.out()*cout, gr)
	pass := convPass{g: *g, n: n, x: x.Data, w: w.Data, cout: cout, out: out.Data}
	if bias != nil {
		pass.bias = bias.Data
	}
	pass.run()
	if gr {
		nd := tp.record(backConv, out, x, w, bias)
		if w.Grad != nil { // one partial weight gradient per block
			nd.s2 = tp.scratch(g.blocks(n) * taps * cout)
		}
		if x.Grad != nil && g.inPlaceInputGrad() { // the flipped weights of the input's gradient
			nd.s = tp.scratch(taps * cout)
		}
		nd.s3 = tp.scratch(convGeomLen)
		g.store(nd.s3)
	}
	return out
}

func backConv(nd *node) {
	x, w, bias, out := nd.a, nd.b, nd.c, nd.out
	pass := convPass{n: x.Rows, x: x.Data, xg: x.Grad, w: w.Data, cout: w.Cols, dy: out.Grad, wpart: nd.s2, back: true}
	pass.g.load(nd.s3)
	cout, taps, rows := w.Cols, pass.g.taps(), x.Rows*pass.g.out()
	if bias != nil && bias.Grad != nil {
		kernels.ColSumAdd(bias.Grad[:cout], out.Grad, rows, cout)
	}
	if w.Grad == nil && x.Grad == nil {
		return
	}
	if x.Grad != nil && pass.g.inPlaceInputGrad() {
		pass.wflip = nd.s
		pass.g.flip(w.Data, cout, pass.wflip)
	}
	pass.run()
	if w.Grad != nil { // dW += Σ_blocks colᵀ·dY, in block order
		for b := 0; b < pass.g.blocks(x.Rows); b++ {
			floats.Add(w.Grad, nd.s2[b*taps*cout:(b+1)*taps*cout])
		}
	}
}

// convBlockRows is about the number of output positions (rows of the patch matrix) of a
// block of the convolution: the block's patches stay in cache between im2col and the product.
const convBlockRows = 2048

// block returns the number of examples of a block; blocks depend on the shape alone, never on
// the number of goroutines, so that the partial weight gradients summed over them are the
// same whatever the split.
func (g *convGeom) block() int { return max(1, convBlockRows/g.out()) }

// blocks returns the number of blocks of n examples.
func (g *convGeom) blocks(n int) int { return (n + g.block() - 1) / g.block() }

// convPass runs the convolution over blocks of examples, split over the workers. Forward, a
// block copies its patches (im2col) into a buffer of its own and multiplies them by the
// weights: y = col·W + b. Backward, it copies its patches again (copies cost less than
// keeping the patch matrix of the whole batch on the tape), computes its partial weight
// gradient colᵀ·dY into its slot of wpart (when the weights need one; a convolution of few
// taps computes the same sums from the input, conv_taps.go) and, when the input needs a
// gradient, dcol = dY·Wᵀ, added back to the input positions it came from (col2im).
// Memory beyond the input and output is two blocks' patches per worker. Every value is
// computed by one block in a fixed order, so the results do not depend on the number of
// goroutines.
type convPass struct {
	g       convGeom
	n, cout int
	x, xg   []float64
	w, bias []float64
	out, dy []float64
	wpart   []float64
	wflip   []float64 // backward in place: the weights of the input's gradient (convGeom.flip)
	back    bool
	wgT     bool // the weight gradient is taken transposed (convGeom.weightGradTransposed)
	wgTaps  bool // the weight gradient is taken from the input, without patches (convGeom.convTaps)
}

var (
	convPasses par.FreeList[convPass]
	convBufs   par.FreeList[[]float64] // one block's patches
)

func (p *convPass) run() {
	j := convPasses.Get()
	*j = *p
	// once for the pass
	j.wgTaps = p.back && p.wpart != nil && p.g.convTaps()
	j.wgT = p.back && p.wpart != nil && !j.wgTaps && p.g.weightGradTransposed(p.cout)
	par.Range(p.g.blocks(p.n), p.grain(), j)
	*j = convPass{}
	convPasses.Put(j)
}

// parFlops is about the least work, in flops, worth handing to another goroutine: waking a
// worker and moving the data to its core costs, on small machines and virtual ones, as much
// as a few million flops of the products here.
const parFlops = 1 << 21

// grain returns the number of blocks a goroutine takes at least: enough for parFlops of the
// products of the forward pass (2·rows·taps·cout per block; the backward pass does about twice
// that).
func (p *convPass) grain() int {
	per := 2 * p.g.block() * p.g.out() * p.g.taps() * p.cout
	return max(1, parFlops/max(per, 1))
}

// blockBuf returns a buffer for one block's patches from the free list.
func (g *convGeom) blockBuf() *[]float64 {
	buf := convBufs.Get()
	if need := g.block() * g.out() * g.taps(); cap(*buf) < need {
		*buf = make([]float64, need)
	}
	return buf
}

func (p *convPass) Do(lo, hi int) {
	g := &p.g
	if !p.back && g.convTaps() {
		p.forwardTaps(lo, hi)
		return
	}
	if g.inPlace() {
		p.doInPlace(lo, hi)
		return
	}
	taps, cout, per := g.taps(), p.cout, g.out()
	var colBuf, dcolBuf *[]float64
	if !g.identity() {
		colBuf = g.blockBuf()
		defer convBufs.Put(colBuf)
		if p.back && p.xg != nil {
			dcolBuf = g.blockBuf()
			defer convBufs.Put(dcolBuf)
		}
	}
	for b := lo; b < hi; b++ {
		e0, e1 := b*g.block(), min(p.n, (b+1)*g.block())
		r0, rows := e0*per, (e1-e0)*per
		var col []float64
		if g.identity() { // the input is its own patch matrix
			col = p.x[r0*taps : (r0+rows)*taps]
		} else {
			col = (*colBuf)[:rows*taps]
			if !p.back || p.wpart != nil && !p.wgTaps {
				(&convJob{g: *g, x: p.x, col: col, first: e0}).Do(e0, e1)
			}
		}
		if !p.back {
			y := p.out[r0*cout : (r0+rows)*cout]
			if p.bias != nil {
				gemmBias(rows, cout, taps, col, taps, p.w, cout, p.bias, y, cout)
			} else {
				gemm(false, false, rows, cout, taps, 1, col, taps, p.w, cout, 0, y, cout)
			}
			continue
		}
		dy := p.dy[r0*cout : (r0+rows)*cout]
		switch {
		case p.wgTaps: // a convolution of few taps: without patches
			p.weightGradTaps(b)
		case p.wpart != nil: // this block's colᵀ·dY
			gemm(true, false, taps, cout, rows, 1, col, taps, dy, cout, 0, p.wpart[b*taps*cout:(b+1)*taps*cout], cout)
		}
		if p.xg == nil {
			continue
		}
		if g.identity() { // dX += dY·Wᵀ
			gemm(false, true, rows, taps, cout, 1, dy, cout, p.w, cout, 1, p.xg[r0*taps:(r0+rows)*taps], taps)
			continue
		}
		dcol := (*dcolBuf)[:rows*taps]
		gemm(false, true, rows, taps, cout, 1, dy, cout, p.w, cout, 0, dcol, taps)
		(&convJob{g: *g, x: p.xg, col: dcol, first: e0, back: true}).Do(e0, e1)
	}
}

// convGeomLen is the number of values a geometry is saved as on the tape (a node has no room
// for it, and saving it in scratch keeps recording free of allocations).
const convGeomLen = 15

func (g *convGeom) store(s []float64) {
	for i, v := range [convGeomLen]int{g.c, g.h, g.w, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw, g.pt, g.pb, g.pl, g.pr, g.oh, g.ow} {
		s[i] = float64(v)
	}
}

func (g *convGeom) load(s []float64) {
	p := [convGeomLen]*int{&g.c, &g.h, &g.w, &g.kh, &g.kw, &g.sh, &g.sw, &g.dh, &g.dw, &g.pt, &g.pb, &g.pl, &g.pr, &g.oh, &g.ow}
	for i, q := range p {
		*q = int(s[i])
	}
}

// convJob copies the patches of examples into rows of col (im2col) or, backward, adds rows of
// col back to the input positions they were copied from (col2im): row (i·oh + oy)·ow + ox of
// the patch matrix holds, at column (ky·kw + kx)·c + ch, input value (oy·sh + ky·dh − pt,
// ox·sw + kx·dw − pl, ch) of example i, or 0 outside the input. col starts at example first.
type convJob struct {
	g      convGeom
	x, col []float64
	first  int
	back   bool
}

func (j *convJob) Do(lo, hi int) {
	g := j.g // a local copy: the loops below keep its fields in registers
	c, w, ow := g.c, g.w, g.ow
	in, taps, per, span := g.in(), g.taps(), g.out()*g.taps(), g.kw*g.c
	first, last := g.inside() // outputs whose window lies inside the row: one run each
	for i := lo; i < hi; i++ {
		x, col := j.x[i*in:(i+1)*in], j.col[(i-j.first)*per:(i-j.first+1)*per]
		for oy := 0; oy < g.oh; oy++ {
			for ky := 0; ky < g.kh; ky++ {
				iy := oy*g.sh + ky*g.dh - g.pt
				base := oy*ow*taps + ky*span // seg of output (oy, 0) for this kernel row
				if iy < 0 || iy >= g.h {
					if !j.back {
						for ox := 0; ox < ow; ox++ {
							clear(col[base+ox*taps : base+ox*taps+span])
						}
					}
					continue
				}
				xr := x[iy*w*c : (iy+1)*w*c]
				for ox := 0; ox < ow; ox++ {
					if ox == first && last > first {
						runs(col[base+first*taps:], xr[(first*g.sw-g.pl)*c:], last-first, span, taps, g.sw*c, j.back)
						ox = last - 1
						continue
					}
					window(&g, xr, col[base+ox*taps:base+ox*taps+span], ox*g.sw-g.pl, j.back)
				}
			}
		}
	}
}

// inside returns the range [lo, hi) of output columns whose window lies inside the input
// row without dilation, so that its taps are one contiguous run (empty when dilated).
func (g *convGeom) inside() (lo, hi int) {
	if g.dw != 1 {
		return 0, 0
	}
	lo = (g.pl + g.sw - 1) / g.sw          // first ox with ox·sw − pl ≥ 0
	hi = min(g.ow, (g.w-g.kw+g.pl)/g.sw+1) // past the last ox with ox·sw − pl + kw ≤ w
	return lo, max(lo, hi)
}

// runs copies n windows of span values, the k-th from src[k·step:] to dst[k·taps:] (or,
// backward, adds them back).
func runs(dst, src []float64, n, span, taps, step int, back bool) {
	switch {
	case back:
		for k := 0; k < n; k++ {
			addTo(src[k*step:k*step+span], dst[k*taps:k*taps+span])
		}
	case span <= 8: // a kernel row of a few channels: one masked move per run
		kernels.CopyRuns(dst, src, n, span, taps, step)
	case span <= 16: // short runs: a loop costs less than a call of memmove
		for k := 0; k < n; k++ {
			d, s := dst[k*taps:k*taps+span], src[k*step:k*step+span]
			for t := range d {
				d[t] = s[t]
			}
		}
	default:
		for k := 0; k < n; k++ {
			copy(dst[k*taps:k*taps+span], src[k*step:k*step+span])
		}
	}
}

// addTo adds src to dst elementwise (len(dst) ≥ len(src)).
func addTo(dst, src []float64) {
	dst = dst[:len(src)]
	for t, v := range src {
		dst[t] += v
	}
}

// window copies (or, backward, adds back) the taps of one kernel row that reaches into the
// padding or is dilated: image row xr, taps seg, leftmost input column ix0.
func window(g *convGeom, xr, seg []float64, ix0 int, back bool) {
	c := g.c
	for kx := 0; kx < g.kw; kx++ {
		ix := ix0 + kx*g.dw
		s := seg[kx*c : (kx+1)*c]
		switch {
		case ix < 0 || ix >= g.w:
			if !back {
				for t := range s { // a loop: a call of memclr costs more for a few channels
					s[t] = 0
				}
			}
		case back:
			addTo(xr[ix*c:(ix+1)*c], s)
		case c <= 16:
			for t, v := range xr[ix*c : (ix+1)*c] {
				s[t] = v
			}
		default:
			copy(s, xr[ix*c:(ix+1)*c])
		}
	}
}

// convRef is the scalar reference of the convolutions' forward pass: the direct loop over
// output positions and taps with fused multiply-adds, as the product's micro-kernel does (see
// kernels.TileGo). Through im2col each sum is started at 0 and accumulated in order of
// (ky, kx, c), then the bias is added; in place (convGeom.inPlace) each kernel row's sum over
// (kx, c) is started at 0 and added to the bias plus the previous rows' sums. It returns the
// n × out·cout output.
func convRef(g *convGeom, x []float64, n int, w []float64, cout int, bias []float64) []float64 {
	y := make([]float64, n*g.out()*cout)
	rows := g.inPlace()
	for i := 0; i < n; i++ {
		for oy := 0; oy < g.oh; oy++ {
			for ox := 0; ox < g.ow; ox++ {
				for o := 0; o < cout; o++ {
					acc, s := 0.0, 0.0
					if rows && bias != nil {
						acc = bias[o]
					}
					for ky := 0; ky < g.kh; ky++ {
						for kx := 0; kx < g.kw; kx++ {
							iy, ix := oy*g.sh+ky*g.dh-g.pt, ox*g.sw+kx*g.dw-g.pl
							for ch := 0; ch < g.c; ch++ {
								v := 0.0
								if iy >= 0 && iy < g.h && ix >= 0 && ix < g.w {
									v = x[i*g.in()+(iy*g.w+ix)*g.c+ch]
								}
								s = math.FMA(v, w[((ky*g.kw+kx)*g.c+ch)*cout+o], s)
							}
						}
						if rows {
							acc, s = s+acc, 0
						}
					}
					if !rows {
						acc = s
						if bias != nil {
							acc += bias[o]
						}
					}
					y[(i*g.out()+oy*g.ow+ox)*cout+o] = acc
				}
			}
		}
	}
	return y
}

// ChannelsLastPerm returns the column permutation that turns rows stored channel-first
// (channel c's positions together, PyTorch's NCL or NCHW flattened: column c·positions + p)
// into the channels-last layout of this package (column p·channels + c), for PermuteColumns.
func ChannelsLastPerm(channels, positions int) []int {
	if channels < 1 || positions < 1 {
		panic(fmt.Sprintf("nn: ChannelsLastPerm(%d, %d): want channels and positions ≥ 1", channels, positions))
	}
	perm := make([]int, channels*positions)
	for p := 0; p < positions; p++ {
		for c := 0; c < channels; c++ {
			perm[p*channels+c] = c*positions + p
		}
	}
	return perm
}
