package nn

import (
	"math"

	"github.com/gosbi/gosbi/sbi/internal/kernels"
)

// ---- convolutions of few taps ----
//
// A first layer of a few input channels has windows of a few taps (2 channels × 5, 1 × 3×3):
// the products of its forward pass have a depth of k ≤ 12, and a micro-tile of the packed
// product then spends more on its call, its stores and the copy of the patches (im2col, or
// the virtual rows of the in-place path) than on its k multiply-adds per output. The forward
// pass of such a convolution runs instead on kernels.ConvTaps, which reads the windows
// straight from the padded input and keeps the weights in registers:
//
//	y[i, oy, ox, o] = b[o] + Σ_l P[i, oy·sh, ox·sw, l]·W[l, o],   P[i, y, x, l] = xpad[i, y + ky·dh, x + kx·dw, c],
//
// for tap l = (ky·kw + kx)·C + c, the sum a fused multiply-add chain over l started at 0,
// then added to the bias (0 without one): the sums of the product's micro-tile, so that the
// output has the bits of the path it replaces (see fixTileRows for the one exception).
//
// The weight gradient of such a convolution runs on kernels.ConvGradW, which reads the same
// windows and keeps the taps×16 sums in registers:
//
//	dW[l, o] = Σ_blocks Σ_{rows r of the block} P[r, l]·dY[r, o],
//
// the rows r of a block of examples in the order of the patch matrix (or of the virtual rows
// of a series, conv_inplace.go), each depth block of kernels.KC rows a fused multiply-add
// chain started at 0 and added to the sum of the previous ones: the sums of the product
// colᵀ·dY it replaces, whose depth blocks run across examples.

// noConvTaps makes the forward pass take the product path even where convTaps holds; tests
// set it to compare the two.
var noConvTaps bool

// convTaps reports whether the forward pass runs on kernels.ConvTaps: at most
// kernels.ConvTapsMax taps, on the AVX-512 product kernel (whose sums ConvTaps repeats; a
// forced BLAS path keeps its products), and not a 1×1 convolution (a product of the input
// itself) nor an in-place one other than of series (whose kernel rows are separate sums).
func (g *convGeom) convTaps() bool {
	return !noConvTaps && g.taps() <= kernels.ConvTapsMax && !g.identity() &&
		ownWidth() == 16 && (forcedPath == pathAuto || forcedPath == pathOwn) &&
		(!g.inPlace() || g.series())
}

// series reports whether the examples are series without vertical padding or kernel, whose
// padded rows can be stacked as the rows of one image.
func (g *convGeom) series() bool { return g.h == 1 && g.kh == 1 && g.pt+g.pb == 0 }

// forwardTaps runs the forward pass of blocks lo…hi on kernels.ConvTaps: the block's series
// as the rows of one image, or image by image.
func (p *convPass) forwardTaps(lo, hi int) {
	g := &p.g
	s := convScratches.Get()
	defer convScratches.Put(s)
	cout, in, per, taps := p.cout, g.in(), g.out()*p.cout, g.taps()
	bias := p.bias
	if bias == nil { // the product path adds C = 0 to each sum
		s.zero = sized(s.zero, cout)
		clear(s.zero)
		bias = s.zero
	}
	series := g.series()
	for b := lo; b < hi; b++ {
		e0, e1 := b*g.block(), min(p.n, (b+1)*g.block())
		step, ig := 1, *g
		if series {
			step = e1 - e0
			ig.h, ig.oh = step, step
		}
		_, wp := ig.padded()
		s.off = g.tapOffsets(s.off, wp)
		for i := e0; i < e1; i += step {
			x, y := ig.paddedInput(s, p.x[i*in:(i+step)*in]), p.out[i*per:(i+step)*per]
			for j0 := 0; j0 < cout; j0 += 16 {
				kernels.ConvTaps(ig.oh, ig.ow, taps, min(16, cout-j0), x, ig.sh*wp*ig.c, ig.sw*ig.c, s.off,
					p.w[j0:], cout, bias[j0:], y[j0:], cout)
			}
		}
		if p.bias != nil {
			p.fixTileRows(e0, e1)
		}
	}
}

// tapOffsets returns the offsets of a window's taps in a padded input wp pixels wide, tap
// (ky·kw + kx)·C + c at (ky·dh·wp + kx·dw)·C + c, in off's storage.
func (g *convGeom) tapOffsets(off []int, wp int) []int {
	if cap(off) < g.taps() {
		off = make([]int, g.taps())
	}
	off = off[:g.taps()]
	for ky := 0; ky < g.kh; ky++ {
		for kx := 0; kx < g.kw; kx++ {
			for ch := 0; ch < g.c; ch++ {
				off[(ky*g.kw+kx)*g.c+ch] = (ky*g.dh*wp+kx*g.dw)*g.c + ch
			}
		}
	}
	return off
}

// fixTileRows gives the outputs of examples e0…e1 (one block) the bits of the product path
// where they differ: the product stores the rows of its last, partial micro-tile of MR rows
// as b + (s + 0) rather than s + b, which is +0 where the sum s and the bias b are both −0
// (s + b is −0). The product's rows are the block's outputs (im2col) or, in place, its
// virtual rows (convGeom.virtual), series after series.
func (p *convPass) fixTileRows(e0, e1 int) {
	g, cout := &p.g, p.cout
	negZero := false
	for _, v := range p.bias {
		negZero = negZero || v == 0 && math.Signbit(v)
	}
	if !negZero {
		return
	}
	per := g.out()
	m, wp := (e1-e0)*per, 0 // the product's rows, and the virtual row of a series' width
	if g.inPlace() {
		_, wp = g.padded()
		m = (e1-e0-1)*wp + g.ow
	}
	for v := m - m%kernels.MR; v < m; v++ {
		r := e0*per + v // the output row of product row v
		if wp > 0 {
			if v%wp >= g.ow { // a row that wraps: dropped
				continue
			}
			r = e0*per + v/wp*g.ow + v%wp
		}
		for o, bv := range p.bias {
			if y := &p.out[r*cout+o]; *y == 0 && math.Signbit(*y) && bv == 0 && math.Signbit(bv) {
				*y = 0
			}
		}
	}
}

// weightGradTaps sets block b's slot of wpart to its weight gradient, colᵀ·dY, on
// kernels.ConvGradW: the windows read from each example's padded input, the partial sums of
// the product's depth blocks carried from one example to the next, so that the gradient has
// the bits of the product over the block's patch matrix without copying it.
func (p *convPass) weightGradTaps(b int) {
	g := &p.g
	s := convScratches.Get()
	defer convScratches.Put(s)
	taps, cout, in, per := g.taps(), p.cout, g.in(), g.out()*p.cout
	wpart := p.wpart[b*taps*cout : (b+1)*taps*cout]
	clear(wpart)
	_, wp := g.padded()
	s.off = g.tapOffsets(s.off, wp)
	s.gw = sized(s.gw, (cout+15)/16*taps*16)
	clear(s.gw)
	left := kernels.KC
	for i := b * g.block(); i < min(p.n, (b+1)*g.block()); i++ {
		x := g.paddedInput(s, p.x[i*in:(i+1)*in])
		left = p.gradTaps(s, g.oh, g.ow, x, g.sh*wp*g.c, g.sw*g.c, p.dy[i*per:(i+1)*per], cout, wpart, left)
	}
	p.flushTaps(s, wpart, left)
}

// weightGradSeries adds the weight gradient of the series stacked as the rows of the image
// g, read from its padded input src, to wpart on kernels.ConvGradW: over the virtual rows of
// the in-place product, each series' outputs followed by the rows that wrap into the next
// series, whose dY is 0 (a row of zeros read again), so that no dY in virtual rows is copied.
func (p *convPass) weightGradSeries(s *convScratch, g *convGeom, src, dy, wpart []float64) {
	_, wp := g.padded()
	c, cout := g.c, p.cout
	s.off = g.tapOffsets(s.off, wp)
	s.gw = sized(s.gw, (cout+15)/16*g.taps()*16)
	clear(s.gw)
	s.zero = sized(s.zero, cout)
	clear(s.zero)
	left := kernels.KC
	for oy := 0; oy < g.oh; oy++ {
		x := src[oy*wp*c:]
		left = p.gradTaps(s, 1, g.ow, x, 0, c, dy[oy*g.ow*cout:], cout, wpart, left)
		if oy < g.oh-1 && wp > g.ow {
			left = p.gradTaps(s, 1, wp-g.ow, x[g.ow*c:], 0, c, s.zero, 0, wpart, left)
		}
	}
	p.flushTaps(s, wpart, left)
}

// gradTaps adds the products of rows×cols outputs, their rows of dY lddy apart, to the partial
// sums s.gw, 16 output channels at a time (kernels.ConvGradW), and returns what the depth
// block in progress has left.
func (p *convPass) gradTaps(s *convScratch, rows, cols int, x []float64, ra, sa int, dy []float64, lddy int, wpart []float64, left int) int {
	taps, cout, next := p.g.taps(), p.cout, left
	for j0 := 0; j0 < cout; j0 += 16 {
		next = kernels.ConvGradW(rows, cols, taps, min(16, cout-j0), x, ra, sa, s.off, dy[j0:], lddy,
			s.gw[j0/16*taps*16:], wpart[j0:], cout, left)
	}
	return next
}

// flushTaps adds the partial sums of the last depth block, if it has any, to wpart.
func (p *convPass) flushTaps(s *convScratch, wpart []float64, left int) {
	if left == kernels.KC {
		return
	}
	taps, cout := p.g.taps(), p.cout
	for j0 := 0; j0 < cout; j0 += 16 {
		kernels.ConvGradWFlush(taps, min(16, cout-j0), s.gw[j0/16*taps*16:], wpart[j0:], cout)
	}
}
