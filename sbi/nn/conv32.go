package nn

import (
	"fmt"
	"math"

	"github.com/gosbi/gosbi/sbi/internal/kernels"
	"github.com/gosbi/gosbi/sbi/internal/par"
)

// ---- float32 convolutions ----
//
// Conv1D32 and Conv2D32 are Conv1D and Conv2D on float32 tensors (tensor32.go), for unit
// strides without dilation (any padding, causal included): the convolutions of in-place
// patches (conv_inplace.go), on the float32 micro-kernels kernels.Tiles32Strided (6×32
// tiles) and kernels.Tiles16Strided (12×16, for products of at most 16 columns), both of 16
// lanes. With P the padded input (Hp×Wp pixels of C channels) and W_ky the kw·C rows of the
// weights of kernel row ky, each output row oy is
//
//	Y[oy, ox, o] = b[o] + Σ_ky Σ_{l<kw·C} P[((oy + ky)·Wp + ox)·C + l] · W_ky[l, o],
//
// one product per kernel row whose rows (ox) are overlapping runs of P read in place at
// stride C, the first product storing over the bias and the others adding to the output.
// A 2-D convolution of short kernel rows (kw·C < inPlaceMinSpan, a first layer) runs on its
// input stacked by kernel rows (convGeom.stacked), one product of all the taps per row. The
// gradients:
//
//	dW_ky[l, o] = Σ_{i, oy, ox} P_i[((oy + ky)·Wp + ox)·C + l] · dY_i[oy, ox, o],   db[o] = Σ dY[·, o],
//	dX[y, x, c] += Σ_{jy, jx, o} dYpad[y + pt + jy, x + pl + jx, o] · W[((kh−1−jy)·kw + kw−1−jx)·C + c, o],
//
// the weight gradient as P_kyᵀ·dY per output row and kernel row (P read in place again, as
// a transposed matrix: no patch is copied) and db as 1ᵀ·dY, both on the micro-kernels; the
// input gradient as the full convolution of dY, zero-padded by kh−1 and kw−1 on every side,
// with the flipped weights (Dumoulin & Visin 2016, relationship 8), the forward pass's loop
// again, adding to dX; with fewer than inPlaceMinSpan input channels, whose full convolution
// would leave most lanes empty, as dcol = dY·Wᵀ added back to the input positions (col2im).
// Sums are in float32 with fused multiply-adds; the weight and bias gradients are summed per
// block of examples in float32 and over the blocks, in block order, in float64 (into the
// parameters' float64 Grad), so no result depends on the number of goroutines. Series are
// convolved a block at a time as the rows of one image. On AVX-512, a convolution of at most
// kernels.ConvTaps32Max taps (a first layer) has its forward pass and weight gradient on the
// direct kernels kernels.ConvTaps32 and ConvGradW32 instead (convGeom.taps32), which read
// the windows from the padded input and keep a tap's 16 weights, or sums, in one register.

// Conv1D32 is Conv1D on a float32 input: the series x (n × Length·Channels, channels-last)
// convolved with the float64 weights w (Kernel·Channels × Out) and bias (1×Out, or nil),
// cast to float32 inside the op; their gradients are added to w.Grad and bias.Grad in
// float64. Stride and Dilation must be 1 (or 0); Causal and Padding are as in Conv1D.
func (tp *Tape) Conv1D32(x *Tensor32, w, bias *Tensor, cfg Conv1DConfig) *Tensor32 {
	g := cfg.geom("Conv1D32", false)
	return tp.conv32("Conv1D32", x, w, bias, &g)
}

// Conv2D32 is Conv2D on a float32 input: the images x (n × Height·Width·Channels,
// channels-last) convolved with the float64 weights w (Kernel[0]·Kernel[1]·Channels × Out)
// and bias (1×Out, or nil), as Conv1D32. Strides and dilations must be 1 (or 0).
func (tp *Tape) Conv2D32(x *Tensor32, w, bias *Tensor, cfg Conv2DConfig) *Tensor32 {
	g := cfg.geom("Conv2D32", false)
	return tp.conv32("Conv2D32", x, w, bias, &g)
}

func (tp *Tape) conv32(op string, x *Tensor32, w, bias *Tensor, g *convGeom) *Tensor32 {
	if g.sh != 1 || g.sw != 1 || g.dh != 1 || g.dw != 1 {
		panic(fmt.Sprintf("nn: %s: stride %d×%d, dilation %d×%d, want 1 (the float32 convolutions read their patches in place; use the float64 op for other strides or dilations)", op, g.sh, g.sw, g.dh, g.dw))
	}
	g.check(op, x.Rows, x.Cols, w, bias)
	biasGrad := bias != nil && bias.Grad != nil
	gr := !tp.NoGrad && (x.Grad != nil || w.Grad != nil || biasGrad)
	n, cout := x.Rows, w.Cols
	out := tp.tensor32(n, g.out()*cout, gr)
	nq := panels32(cout)
	pass := conv32Pass{g: *g, n: n, cout: cout, x: x.Data, out: out.Data, taps: g.taps32(),
		w: tp.scratch32(g.kh * nq * g.kw * g.c * kernels.Panel32), bias: tp.scratch32(nq * kernels.Panel32)}
	if pass.taps { // the weights as they are (taps × cout), in float32
		for i, v := range w.Data {
			pass.w[i] = float32(v)
		}
	} else {
		g.pack32(w.Data, cout, pass.w)
	}
	clear(pass.bias)
	if bias != nil {
		for o, v := range bias.Data {
			pass.bias[o] = float32(v)
		}
	}
	pass.run()
	if gr {
		nd := tp.record32(backConv32, out, x, w, bias)
		nd.s3 = tp.scratch(convGeomLen)
		g.store(nd.s3)
		if x.Grad != nil { // the flipped or transposed weights of the input's gradient
			nd.f = tp.scratch32(max(g.kh*panels32(g.c)*g.kw, panels32(g.taps())) * cout * kernels.Panel32)
		}
		if w.Grad != nil || biasGrad { // one partial gradient per block
			pg := g.product()
			nd.f2 = tp.scratch32(g.blocks(n) * pg.part32(cout))
		}
	}
	return out
}

func backConv32(nd *node) {
	x, w, bias, out := nd.a32, nd.b, nd.c, nd.out32
	pass := conv32Pass{n: x.Rows, cout: w.Cols, x: x.Data, xg: x.Grad, dy: out.Grad, part: nd.f2, back: true}
	pass.g.load(nd.s3)
	g := &pass.g
	pass.taps = g.taps32()
	if x.Grad != nil {
		pass.w = nd.f
		if g.colInputGrad() {
			g.transpose32(w.Data, pass.cout, pass.w)
		} else {
			g.flip32(w.Data, pass.cout, pass.w)
		}
	}
	pass.run()
	if nd.f2 == nil {
		return
	}
	pg := g.product()
	cout, span, plen := pass.cout, pg.kw*pg.c, pg.part32(pass.cout)
	span6, ld := rows12(span), panels32(cout)*kernels.Panel32
	blocks := g.blocks(x.Rows)
	if w.Grad != nil { // dW[wrow(ky, l)·cout + o] += Σ_blocks part[ky][l][o], in block order
		for ky := 0; ky < pg.kh; ky++ {
			for l := 0; l < span; l++ {
				row := w.Grad[g.wrow(ky, l)*cout:][:cout]
				for o := range row {
					at, s := (ky*span6+l)*ld+o, 0.0
					for b := 0; b < blocks; b++ {
						s += float64(nd.f2[b*plen+at])
					}
					row[o] += s
				}
			}
		}
	}
	if bias != nil && bias.Grad != nil {
		at := pg.kh * span6 * ld
		for o := 0; o < cout; o++ {
			s := 0.0
			for b := 0; b < blocks; b++ {
				s += float64(nd.f2[b*plen+at+o])
			}
			bias.Grad[o] += s
		}
	}
}

// tileRows returns the height of the micro-tile of a product of count columns: 12×16 tiles
// for at most 16 (all lanes busy), 6×32 for more.
func tileRows(count int) int {
	if count <= 16 {
		return kernels.TileRows16
	}
	return kernels.TileRows32
}

// tiles32 runs the rows (a whole number of tileRows) of a product of the columns of cols on
// the micro-kernel of its width (see kernels.Tiles32StridedGo for the arguments).
func tiles32(rows, k int, a []float32, ra, ka int, b []float32, ldb int, c []float32, ldc int, bias []float32, cols uint32, acc bool) {
	if cols < 1<<16 {
		kernels.Tiles16Strided(rows/kernels.TileRows16, k, a, ra, ka, b, ldb, c, ldc, bias, negInf32, cols, acc)
		return
	}
	kernels.Tiles32Strided(rows/kernels.TileRows32, k, a, ra, ka, b, ldb, c, ldc, bias, negInf32, cols, acc)
}

// remRows returns the rows of the tile that computes the last rem rows of a product of count
// columns, short of a whole tile: a 6×32 tile for at most six of a 12×16 product, which
// costs half a 12×16 tile.
func remRows(count, rem int) int {
	if rem <= kernels.TileRows32 {
		return kernels.TileRows32
	}
	return tileRows(count)
}

// tilesRem is tiles32 for the rows (remRows of them) of a remainder.
func tilesRem(rows, k int, a []float32, ra, ka int, b []float32, ldb int, c []float32, ldc int, bias []float32, cols uint32, acc bool) {
	if rows == kernels.TileRows32 {
		kernels.Tiles32Strided(1, k, a, ra, ka, b, ldb, c, ldc, bias, negInf32, cols, acc)
		return
	}
	tiles32(rows, k, a, ra, ka, b, ldb, c, ldc, bias, cols, acc)
}

// rows12 rounds n up to a whole number of tiles of either height.
func rows12(n int) int { return (n + 11) / 12 * 12 }

// panels32 returns the number of 32-wide panels of n columns; rows6 rounds n up to whole
// tiles of six rows.
func panels32(n int) int { return (n + kernels.Panel32 - 1) / kernels.Panel32 }
func rows6(n int) int    { return (n + kernels.TileRows32 - 1) / kernels.TileRows32 * kernels.TileRows32 }

// part32 returns the length of a block's partial gradients: kh blocks of dW_ky (its taps,
// rounded up to whole tiles, by cout rounded up to whole panels), then a tile whose first row
// is db.
func (g *convGeom) part32(cout int) int {
	ld := panels32(cout) * kernels.Panel32
	return (g.kh*rows12(g.kw*g.c) + kernels.TileRows16) * ld
}

// pack32 writes the weights of the forward pass as the micro-kernel's panels: for kernel
// row ky and panel q of the outputs of the product geometry (convGeom.product), kw·C rows of
// 32 values, wp[((ky·nq + q)·kw·C + l)·32 + j] = w[wrow(ky, l)·cout + 32q + j] (0 past cout).
func (g *convGeom) pack32(w []float64, cout int, wp []float32) {
	pg := g.product()
	span, nq := pg.kw*pg.c, panels32(cout)
	for ky := 0; ky < pg.kh; ky++ {
		for q := 0; q < nq; q++ {
			for l := 0; l < span; l++ {
				row := wp[((ky*nq+q)*span+l)*kernels.Panel32:][:kernels.Panel32]
				for j := range row {
					row[j] = 0
					if o := q*kernels.Panel32 + j; o < cout {
						row[j] = float32(w[g.wrow(ky, l)*cout+o])
					}
				}
			}
		}
	}
}

// stacked reports whether a 2-D convolution of short kernel rows (fewer than
// inPlaceMinSpan taps, a first layer of one or a few channels) runs on its stacked input:
// S[y, x, ky·C + c] = P[y + ky, x, c] for the output rows y, a 1×kw convolution of kh·C
// channels whose single product per row has all the taps, instead of kh products of a few.
func (g *convGeom) stacked() bool { return g.kh > 1 && g.kw*g.c < inPlaceMinSpan }

// product returns the geometry of the products: g, or, stacked, the 1×kw convolution of the
// stacked input (OH rows of Wp pixels of kh·C channels, unpadded).
func (g *convGeom) product() convGeom {
	if !g.stacked() {
		return *g
	}
	sg := *g
	sg.c, sg.h, sg.w, sg.kh = g.kh*g.c, g.oh, g.w+g.pl+g.pr, 1
	sg.pt, sg.pb, sg.pl, sg.pr = 0, 0, 0, 0
	return sg
}

// wrow returns the row of the weights of tap l of kernel row ky of the product geometry:
// ky·kw·C + l, or, stacked (l = (kx·kh + ky')·C + c, ky = 0), (ky'·kw + kx)·C + c.
func (g *convGeom) wrow(ky, l int) int {
	if !g.stacked() {
		return ky*g.kw*g.c + l
	}
	kx, r := l/(g.kh*g.c), l%(g.kh*g.c)
	return (r/g.c*g.kw+kx)*g.c + r%g.c
}

// stack32 writes the stacked input of the padded image xp to buf (with the zeros after it
// that the micro-kernel reads past the last row).
func (g *convGeom) stack32(buf *[]float32, xp []float32) []float32 {
	c, wp, kc := g.c, g.w+g.pl+g.pr, g.kh*g.c
	*buf = sized32(*buf, g.oh*wp*kc+kernels.TileRows16*kc+kernels.Panel32)
	st := *buf
	clear(st[g.oh*wp*kc:])
	for y := 0; y < g.oh; y++ {
		dst := st[y*wp*kc : (y+1)*wp*kc] // written in order; the kh input rows read side by side
		if c == 1 && g.kh == 3 {
			r0, r1, r2 := xp[y*wp:(y+1)*wp], xp[(y+1)*wp:(y+2)*wp], xp[(y+2)*wp:(y+3)*wp]
			for x := range r0 {
				d := dst[3*x : 3*x+3]
				d[0], d[1], d[2] = r0[x], r1[x], r2[x]
			}
			continue
		}
		for x := 0; x < wp; x++ {
			d := dst[x*kc : (x+1)*kc]
			for ky := 0; ky < g.kh; ky++ {
				for ch, v := range xp[((y+ky)*wp+x)*c : ((y+ky)*wp+x+1)*c] {
					d[ky*c+ch] = v
				}
			}
		}
	}
	return st
}

// colInputGrad reports whether the input's gradient goes through dcol = dY·Wᵀ and col2im
// rather than the full convolution of dY: with few input channels, most of each tile of the
// full convolution (C columns) would be padding.
func (g *convGeom) colInputGrad() bool { return g.c < inPlaceMinSpan }

// transpose32 writes the weights of dcol = dY·Wᵀ as panels: for panel q of the taps, cout
// rows of 32 values, wt[(q·cout + o)·32 + j] = w[32q + j, o] (0 past the taps).
func (g *convGeom) transpose32(w []float64, cout int, wt []float32) {
	taps := g.taps()
	for q := 0; q < panels32(taps); q++ {
		for o := 0; o < cout; o++ {
			row := wt[(q*cout+o)*kernels.Panel32:][:kernels.Panel32]
			for j := range row {
				row[j] = 0
				if t := q*kernels.Panel32 + j; t < taps {
					row[j] = float32(w[t*cout+o])
				}
			}
		}
	}
}

// flip32 writes the flipped weights of the input's gradient as panels: for kernel row jy
// and panel q of the input channels, kw·cout rows (jx·cout + o) of 32 values,
// wf[((jy·nq + q)·kw·cout + jx·cout + o)·32 + j] = w[((kh−1−jy)·kw + kw−1−jx)·C + 32q + j, o]
// (0 past C).
func (g *convGeom) flip32(w []float64, cout int, wf []float32) {
	c, nq := g.c, panels32(g.c)
	for jy := 0; jy < g.kh; jy++ {
		for q := 0; q < nq; q++ {
			for jx := 0; jx < g.kw; jx++ {
				src := ((g.kh-1-jy)*g.kw + g.kw - 1 - jx) * c
				for o := 0; o < cout; o++ {
					row := wf[((jy*nq+q)*g.kw*cout+jx*cout+o)*kernels.Panel32:][:kernels.Panel32]
					for j := range row {
						row[j] = 0
						if ch := q*kernels.Panel32 + j; ch < c {
							row[j] = float32(w[(src+ch)*cout+o])
						}
					}
				}
			}
		}
	}
}

// conv32Pass runs the float32 convolution, or its backward pass, over blocks of examples
// (convGeom.block) split over the workers.
type conv32Pass struct {
	g       convGeom
	n, cout int
	x, xg   []float32
	w, bias []float32 // forward: packed weights and bias; backward: flipped weights
	out, dy []float32
	part    []float32 // backward: the blocks' partial weight and bias gradients
	back    bool
	taps    bool // on kernels.ConvTaps32 (forward, w the weights unpacked) and ConvGradW32 (convGeom.taps32)
}

// conv32Scratch is one worker's buffers.
type conv32Scratch struct {
	xpad, stk, dypad, dcol, ones []float32
	tmp                          [kernels.TileRows16 * kernels.Panel32]float32
	dyRem                        []float32 // the last rows of dY, a tile's worth (inputGradCol32)
	off                          []int     // the offsets of a window's taps (forwardTaps32)
	gw                           []float32 // the taps×16 sums of kernels.ConvGradW32
}

var (
	conv32Passes    par.FreeList[conv32Pass]
	conv32Scratches par.FreeList[conv32Scratch]
	zero32          [kernels.Panel32]float32
	negInf32        = float32(math.Inf(-1))
)

func (p *conv32Pass) run() {
	j := conv32Passes.Get()
	*j = *p
	per := 2 * p.g.block() * p.g.out() * p.g.taps() * p.cout
	par.RangeShared(p.g.blocks(p.n), max(1, parFlops/max(per, 1)), j)
	*j = conv32Pass{}
	conv32Passes.Put(j)
}

func sized32(b []float32, n int) []float32 {
	if cap(b) < n {
		return make([]float32, n)
	}
	return b[:n]
}

func (p *conv32Pass) Do(lo, hi int) {
	g := &p.g
	s := conv32Scratches.Get()
	defer conv32Scratches.Put(s)
	in, per := g.in(), g.out()*p.cout
	series := g.h == 1 && g.kh == 1 && g.pt+g.pb == 0
	pg := g.product()
	plen := pg.part32(p.cout)
	for b := lo; b < hi; b++ {
		e0, e1 := b*g.block(), min(p.n, (b+1)*g.block())
		step, ig := 1, *g // examples per image, and their geometry
		if series {
			step = e1 - e0
			ig.h, ig.oh = step, step
		}
		var part []float32
		if p.back && p.part != nil {
			part = p.part[b*plen : (b+1)*plen]
		}
		for i := e0; i < e1; i += step {
			x := p.x[i*in : (i+step)*in]
			var dy []float32
			if p.back {
				dy = p.dy[i*per : (i+step)*per]
			}
			if p.taps && !p.back {
				p.forwardTaps32(s, &ig, x, p.out[i*per:(i+step)*per])
				continue
			}
			if p.taps && part != nil {
				p.weightGradTaps32(s, &ig, x, dy, part, i == e0)
			} else if !p.back || part != nil {
				src, sg := ig.pad32(&s.xpad, x, ig.c), ig
				if ig.stacked() {
					src, sg = ig.stack32(&s.stk, src), ig.product()
				}
				if !p.back {
					sg.convRows32(s, src, sg.w+sg.pl+sg.pr, 0, 0, sg.c, p.w, p.cout, p.out[i*per:(i+step)*per], p.bias, false)
					continue
				}
				p.weightGrad32(s, &sg, src, dy, part, i == e0)
			}
			if p.xg == nil {
				continue
			}
			if ig.colInputGrad() {
				p.inputGradCol32(s, &ig, dy, p.xg[i*in:(i+step)*in])
			} else {
				p.inputGrad32(s, &ig, dy, p.xg[i*in:(i+step)*in])
			}
		}
	}
}

// pad32 returns the image x (c channels, g.h×g.w pixels) with the padding of g in buf, and
// zeros after it for the rows the micro-kernel reads past the last (a tile's pixels and a
// panel).
func (g *convGeom) pad32(buf *[]float32, x []float32, c int) []float32 {
	hp, wp := g.h+g.pt+g.pb, g.w+g.pl+g.pr
	*buf = sized32(*buf, hp*wp*c+kernels.TileRows16*c+kernels.Panel32)
	xp := *buf
	clear(xp)
	for y := 0; y < g.h; y++ {
		copy(xp[((y+g.pt)*wp+g.pl)*c:], x[y*g.w*c:(y+1)*g.w*c])
	}
	return xp
}

// taps32 reports whether the forward pass runs on kernels.ConvTaps32: at most
// kernels.ConvTaps32Max taps (a first layer of a few channels), on AVX-512 (without it the
// micro-kernels' loops are the faster ones). A product of so few taps' depth spends more on
// the micro-tiles' calls and stores, and on the stacked input, than on its multiply-adds;
// ConvTaps32 reads the windows from the padded input and keeps the weights in registers.
func (g *convGeom) taps32() bool {
	return !noConvTaps && kernels.AVX512 && g.taps() <= kernels.ConvTaps32Max
}

// forwardTaps32 sets out to the convolution of the image (or block of series as the rows of
// one image) x of geometry g on kernels.ConvTaps32, 16 output channels at a time:
//
//	y[oy, ox, o] = b[o] + Σ_l P[oy + ky, ox + kx, c]·W[l, o],   l = (ky·kw + kx)·C + c,
//
// with P the padded input, the sum a float32 fused multiply-add chain over l.
func (p *conv32Pass) forwardTaps32(s *conv32Scratch, g *convGeom, x, out []float32) {
	wp, c, cout, taps := g.w+g.pl+g.pr, g.c, p.cout, g.taps()
	src := g.pad32(&s.xpad, x, c)
	s.off = g.tapOffsets(s.off, wp)
	for j0 := 0; j0 < cout; j0 += 16 {
		kernels.ConvTaps32(g.oh, g.ow, taps, min(16, cout-j0), src, wp*c, c, s.off,
			p.w[j0:], cout, p.bias[j0:], out[j0:], cout)
	}
}

// convRows32 sets the g.oh rows of g.ow pixels of cout channels of out to the convolution of
// src (rows of wsrc pixels of cin channels, read from row rowOff and pixel colOff on) with
// the packed weights wp (pack32's layout for g.kh×g.kw taps of cin channels): bias plus the
// products of the kernel rows, or, with acc, out plus them. The pixels of a row short of a
// whole tile go through a tile of scratch.
func (g *convGeom) convRows32(s *conv32Scratch, src []float32, wsrc, rowOff, colOff, cin int, wp []float32, cout int, out, bias []float32, acc bool) {
	span, nq, ow := g.kw*cin, panels32(cout), g.ow
	tmp := s.tmp[:]
	for y := 0; y < g.oh; y++ {
		o := out[y*ow*cout : (y+1)*ow*cout]
		for q := 0; q < nq; q++ {
			q0 := q * kernels.Panel32
			count := min(kernels.Panel32, cout-q0)
			mask, tr := kernels.ColsMask(count), tileRows(count)
			nb, rem := ow/tr, ow%tr
			bq := zero32[:]
			if bias != nil {
				bq = bias[q0:]
			}
			if rem > 0 && acc {
				for r := 0; r < rem; r++ {
					copy(tmp[r*kernels.Panel32:][:count], o[(nb*tr+r)*cout+q0:])
				}
			}
			for ky := 0; ky < g.kh; ky++ {
				a := src[((y+rowOff+ky)*wsrc+colOff)*cin:]
				b := wp[(ky*nq+q)*span*kernels.Panel32:]
				add := acc || ky > 0
				tiles32(nb*tr, span, a, cin, 1, b, kernels.Panel32, o[q0:], cout, bq, mask, add)
				if rem > 0 {
					tilesRem(remRows(count, rem), span, a[nb*tr*cin:], cin, 1, b, kernels.Panel32, tmp, kernels.Panel32, bq, mask, add)
				}
			}
			for r := 0; r < rem; r++ {
				copy(o[(nb*tr+r)*cout+q0:][:count], tmp[r*kernels.Panel32:])
			}
		}
	}
}

// weightGrad32 adds the weight and bias gradients of one image (or block of series) to the
// block's partials part (storing over them when first): dW_ky = P_kyᵀ·dY, one product per
// output row and kernel row, with P_kyᵀ read in place (transposed: its rows are the taps, at
// stride 1, its steps the pixels, at stride C), and db (biasGrad32).
func (p *conv32Pass) weightGrad32(s *conv32Scratch, g *convGeom, src, dy, part []float32, first bool) {
	cout, c := p.cout, g.c
	span6, ld, wp := rows12(g.kw*c), panels32(cout)*kernels.Panel32, g.w+g.pl+g.pr
	p.biasGrad32(s, g, dy, part, first)
	for q0 := 0; q0 < cout; q0 += kernels.Panel32 {
		mask := kernels.ColsMask(min(kernels.Panel32, cout-q0))
		for oy := 0; oy < g.oh; oy++ {
			for ky := 0; ky < g.kh; ky++ {
				tiles32(span6, g.ow, src[(oy+ky)*wp*c:], 1, c, dy[oy*g.ow*cout+q0:], cout,
					part[ky*span6*ld+q0:], ld, zero32[:], mask, !first || oy > 0)
			}
		}
	}
}

// weightGradTaps32 is weightGrad32 on kernels.ConvGradW32 for the image (or block of
// series) x of geometry g: its windows read from the padded input, the taps×16 sums of each
// 16 output channels, in the order of the weights' rows, stored (first) or added to the rows
// of the product geometry's partials that hold them (convGeom.wrow).
func (p *conv32Pass) weightGradTaps32(s *conv32Scratch, g *convGeom, x, dy, part []float32, first bool) {
	wp, c, cout, taps := g.w+g.pl+g.pr, g.c, p.cout, g.taps()
	src := g.pad32(&s.xpad, x, c)
	s.off = g.tapOffsets(s.off, wp)
	s.gw = sized32(s.gw, taps*16)
	pg := g.product()
	span, ld := pg.kw*pg.c, panels32(cout)*kernels.Panel32
	span6 := rows12(span)
	for j0 := 0; j0 < cout; j0 += 16 {
		n := min(16, cout-j0)
		clear(s.gw)
		kernels.ConvGradW32(g.oh, g.ow, taps, n, src, wp*c, c, s.off, dy[j0:], cout, s.gw)
		for ky := 0; ky < pg.kh; ky++ {
			for l := 0; l < span; l++ {
				row, sum := part[(ky*span6+l)*ld+j0:][:n], s.gw[g.wrow(ky, l)*16:][:n]
				if first {
					copy(row, sum)
					continue
				}
				for o, v := range sum {
					row[o] += v
				}
			}
		}
	}
	p.biasGrad32(s, &pg, dy, part, first)
}

// biasGrad32 adds the bias gradient of one image (or block of series), db = 1ᵀ·dY, to the
// block's partials part of the product geometry g (storing over it when first), with dY viewed as rows of 32 values
// when cout divides 32, so that the product fills a whole tile's width.
func (p *conv32Pass) biasGrad32(s *conv32Scratch, g *convGeom, dy, part []float32, first bool) {
	cout, m := p.cout, g.out()
	span6, ld := rows12(g.kw*g.c), panels32(cout)*kernels.Panel32
	if len(s.ones) < m {
		s.ones = make([]float32, m)
		for i := range s.ones {
			s.ones[i] = 1
		}
	}
	if kernels.Panel32%cout == 0 { // db from dY viewed as rows of 32: column j sums channel j mod cout
		n32, tmp := m*cout/kernels.Panel32, s.tmp[:kernels.TileRows32*kernels.Panel32]
		kernels.Tiles32Strided(1, n32, s.ones, 0, 1, dy, kernels.Panel32, tmp, kernels.Panel32, zero32[:], negInf32, kernels.ColsMask(kernels.Panel32), false)
		db := part[g.kh*span6*ld:][:cout]
		if first {
			clear(db)
		}
		for j, v := range tmp[:kernels.Panel32] {
			db[j%cout] += v
		}
		for i := n32 * kernels.Panel32; i < m*cout; i++ { // a last row short of 32 values
			db[i%cout] += dy[i]
		}
		return
	}
	for q0 := 0; q0 < cout; q0 += kernels.Panel32 {
		mask := kernels.ColsMask(min(kernels.Panel32, cout-q0))
		tiles32(tileRows(min(kernels.Panel32, cout-q0)), m, s.ones, 0, 1, dy[q0:], cout, part[g.kh*span6*ld+q0:], ld, zero32[:], mask, !first)
	}
}

// inputGrad32 adds the input gradient of one image (or block of series) to dx: the forward
// loop over dY zero-padded by kh−1 rows and kw−1 pixels on every side, with the flipped
// weights, read from row pt and pixel pl on.
func (p *conv32Pass) inputGrad32(s *conv32Scratch, g *convGeom, dy, dx []float32) {
	fg := *g // dY as the input: cout channels of oh×ow pixels, padded by kernel − 1
	fg.c, fg.h, fg.w = p.cout, g.oh, g.ow
	fg.pt, fg.pb, fg.pl, fg.pr = g.kh-1, g.kh-1, g.kw-1, g.kw-1
	fg.oh, fg.ow = g.h, g.w
	dypad := fg.pad32(&s.dypad, dy, p.cout)
	fg.convRows32(s, dypad, g.ow+2*(g.kw-1), g.pt, g.pl, p.cout, p.w, g.c, dx, nil, true)
}

// inputGradCol32 adds the input gradient of one image (or block of series) to dx through
// dcol = dY·Wᵀ (one product over the image's outputs, dY read in place; its last rows, short
// of a tile, from a copy) and col2im: dX[oy + ky − pt, ox + kx − pl, c] += dcol[(oy, ox),
// (ky·kw + kx)·C + c] for the taps inside the image.
func (p *conv32Pass) inputGradCol32(s *conv32Scratch, g *convGeom, dy, dx []float32) {
	cout, m, taps, c := p.cout, g.out(), g.taps(), g.c
	s.dcol = sized32(s.dcol, rows12(m)*taps)
	dcol := s.dcol // m × taps, compact: the kernel stores only the columns of its mask
	for q0 := 0; q0 < taps; q0 += kernels.Panel32 {
		count := min(kernels.Panel32, taps-q0)
		b, mask, tr := p.w[q0/kernels.Panel32*cout*kernels.Panel32:], kernels.ColsMask(count), tileRows(count)
		nb, rem := m/tr, m%tr
		tiles32(nb*tr, cout, dy, cout, 1, b, kernels.Panel32, dcol[q0:], taps, zero32[:], mask, false)
		if rem > 0 {
			rr := remRows(count, rem)
			s.dyRem = sized32(s.dyRem, rr*cout)
			clear(s.dyRem)
			copy(s.dyRem, dy[nb*tr*cout:])
			tilesRem(rr, cout, s.dyRem, cout, 1, b, kernels.Panel32, dcol[nb*tr*taps+q0:], taps, zero32[:], mask, false)
		}
	}
	for oy := 0; oy < g.oh; oy++ {
		for ky := 0; ky < g.kh; ky++ {
			iy := oy + ky - g.pt
			if iy < 0 || iy >= g.h {
				continue
			}
			for kx := 0; kx < g.kw; kx++ {
				lo, hi := max(0, g.pl-kx), min(g.ow, g.w+g.pl-kx) // outputs whose tap kx is inside
				if lo < hi {
					col2im32(dx[(iy*g.w+lo+kx-g.pl)*c:(iy*g.w+hi+kx-g.pl)*c], dcol[(oy*g.ow+lo)*taps+(ky*g.kw+kx)*c:], c, taps)
				}
			}
		}
	}
}

// col2im32 adds the runs of c values of src, ld apart, to the consecutive runs of dst.
func col2im32(dst, src []float32, c, ld int) {
	n := len(dst) / c
	switch c {
	case 1:
		src = src[:(n-1)*ld+1]
		for k := range dst {
			dst[k] += src[k*ld]
		}
	case 2:
		src = src[:(n-1)*ld+2]
		dst = dst[:2*n]
		for k, j := 0, 0; k < len(dst)-1; k, j = k+2, j+ld {
			dst[k] += src[j]
			dst[k+1] += src[j+1]
		}
	default:
		for k := 0; k < n; k++ {
			d, s := dst[k*c:(k+1)*c], src[k*ld:k*ld+c]
			for ch, v := range s {
				d[ch] += v
			}
		}
	}
}
