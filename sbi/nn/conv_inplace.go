package nn

import (
	"math"

	"github.com/gosbi/gosbi/sbi/internal/kernels"
	"github.com/gosbi/gosbi/sbi/internal/par"
)

// ---- convolutions without im2col ----
//
// A convolution of unit strides and no dilation needs no patch matrix. Channels-last, the taps
// of one kernel row of output (oy, ox) are one contiguous run of kw·C values of the padded
// input P (Hp×Wp pixels), starting at pixel (oy + ky, ox), and the run of output (oy, ox+1)
// starts C values further. So for each kernel row ky the patches form a matrix whose rows
// overlap: row v = oy·Wp + ox (a "virtual" row; those with ox ≥ OW wrap into the next image
// row and are computed and dropped) starts at element (ky·Wp + v)·C of P, a matrix of row
// stride C that the product's micro-kernels read in place:
//
//	Yv = b + Σ_ky P_ky · W_ky,        P_ky[v, kx·C + c] = P[(ky·Wp + v)·C + kx·C + c],
//
// with W_ky the kw·C rows of the weights of kernel row ky. The gradients are the products
// of the same views: dW_ky = P_kyᵀ · dYv (dYv: dY in virtual rows, zero where a row is
// dropped; an image with a NaN or infinite input where the dropped rows read, whose 0·NaN
// would reach taps that never see it, takes dW over its real rows alone) and, for the input,
// a convolution of the zero-padded dY (OH + 2(kh−1) by OW + 2(kw−1) pixels, dY at offset
// (kh−1, kw−1)) with the flipped, transposed weights,
//
//	dX[y, x, c] += Σ_{jy,jx,o} dYpad[y + pt + jy, x + pl + jx, o] · W[((kh−1−jy)·kw + kw−1−jx)·C + c, o]
//
// (Dumoulin & Visin 2016, "A guide to convolution arithmetic", relationship 8: the transpose
// of a unit-stride convolution is a full convolution with the kernel flipped), again one
// product per kernel row reading dYpad in place. No value is copied per tap: the copies are
// the padding of one example's input (or of its dY) and the virtual rows of its output, so
// memory beyond the input and output is a few examples' worth per worker, not a patch
// matrix. The own kernels read overlapping rows (row stride below the row length), which a
// BLAS does not accept, so this path runs where they do (kernels.GemmWidth > 0) and the
// product path is not forced otherwise; elsewhere the convolution goes through im2col.
//
// Each output is, per kernel row, a fused multiply-add chain over (kx, c) started at 0 and
// added to the sum of the previous rows (the bias first): convRefRows is that loop.

// inPlace reports whether the convolution runs without im2col: unit strides, no dilation, a
// kernel larger than 1×1, on the own kernels, and one kernel row (a series) or kernel rows of
// at least inPlaceMinSpan taps (a product per kernel row of fewer taps reads and writes its
// output more often than it multiplies: a 3×3 kernel over one channel goes through im2col).
func (g *convGeom) inPlace() bool {
	return g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1 && !g.identity() &&
		(g.kh == 1 || g.kw*g.c >= inPlaceMinSpan) &&
		ownWidth() > 0 && (forcedPath == pathAuto || forcedPath == pathOwn)
}

// inPlaceMinSpan is the least number of taps per kernel row of an in-place 2-D convolution.
const inPlaceMinSpan = 16

// inPlaceInputGrad reports whether the input's gradient of an in-place convolution is the
// full convolution with flipped weights, whose products have C columns: with at least a
// micro-tile's width of channels; with fewer, most of each tile would be padding, and the
// gradient goes through dY·Wᵀ and col2im, example by example.
func (g *convGeom) inPlaceInputGrad() bool { return g.inPlace() && g.c >= ownWidth() }

// padded returns the height and width of the padded input.
func (g *convGeom) padded() (hp, wp int) { return g.h + g.pt + g.pb, g.w + g.pl + g.pr }

// flip writes the weights of the input's gradient, kh·kw·cout rows of C values: row
// (jy·kw + jx)·cout + o, column c of wf is w[((kh−1−jy)·kw + kw−1−jx)·C + c, o].
func (g *convGeom) flip(w []float64, cout int, wf []float64) {
	c := g.c
	for jy := 0; jy < g.kh; jy++ {
		for jx := 0; jx < g.kw; jx++ {
			src := ((g.kh-1-jy)*g.kw + g.kw - 1 - jx) * c
			for o := 0; o < cout; o++ {
				row := wf[((jy*g.kw+jx)*cout+o)*c : ((jy*g.kw+jx)*cout+o+1)*c]
				for ch := range row {
					row[ch] = w[(src+ch)*cout+o]
				}
			}
		}
	}
}

// convScratch is one worker's buffers of the in-place convolution.
type convScratch struct {
	xpad, yv, dyv, dypad, dxv, wt []float64
	zero                          []float64 // the bias row of a convolution without one (conv_taps.go)
	gw                            []float64 // the partial sums of kernels.ConvGradW (conv_taps.go)
	off                           []int     // the offsets of a window's taps (conv_taps.go)
}

var convScratches par.FreeList[convScratch]

// sized returns b with length n, reallocated only when its capacity is short.
func sized(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

// doInPlace runs the blocks lo…hi of the convolution (or its backward pass) on the
// overlapping views described above: image by image, or, for series (one input row, no
// vertical padding or kernel), the block's series at once as the rows of one image, so
// that each product spans the block (the rows that wrap cost (kw−1)/Wp of the work).
func (p *convPass) doInPlace(lo, hi int) {
	g := &p.g
	s := convScratches.Get()
	defer convScratches.Put(s)
	taps, cout, in, per := g.taps(), p.cout, g.in(), g.out()*p.cout
	series := g.h == 1 && g.kh == 1 && g.pt+g.pb == 0
	for b := lo; b < hi; b++ {
		var wpart, wsum []float64 // the block's weight gradient, and where its products add up
		if p.back && p.wpart != nil {
			wpart = p.wpart[b*taps*cout : (b+1)*taps*cout]
			clear(wpart)
			wsum = wpart
			if p.wgT {
				s.wt = sized(s.wt, taps*cout)
				clear(s.wt)
				wsum = s.wt
			}
		}
		e0, e1 := b*g.block(), min(p.n, (b+1)*g.block())
		step, ig := 1, *g // examples per product, and their geometry
		if series {
			step = e1 - e0
			ig.h, ig.oh = step, step
		}
		for i := e0; i < e1; i += step {
			x := p.x[i*in : (i+step)*in]
			switch {
			case !p.back:
				p.forwardImage(s, &ig, ig.paddedInput(s, x), p.out[i*per:(i+step)*per])
			default:
				dy := p.dy[i*per : (i+step)*per]
				if wpart != nil {
					p.weightGradImage(s, &ig, ig.paddedInput(s, x), dy, wsum)
				}
				if p.xg != nil && g.inPlaceInputGrad() {
					p.inputGradImage(s, &ig, dy, p.xg[i*in:(i+step)*in])
				}
			}
		}
		if wpart != nil && p.wgT {
			g.untranspose(wsum, cout, wpart)
		}
		if p.back && p.xg != nil && !g.inPlaceInputGrad() {
			p.inputGradCol(b)
		}
	}
}

// weightGradTransposed reports whether weightGradImage computes each kernel row's weight
// gradient as its transpose, dYᵀ·P (cout × kw·C), rather than Pᵀ·dY (kw·C × cout): the one of
// fewer micro-tiles of MR rows and the kernel's width (a first layer of 2 channels, kernel
// 5 and 6 outputs: one 6×16 tile of depth m instead of two). Both orientations add the same
// products of each element in the same order, so the gradient has the same bits either way.
func (g *convGeom) weightGradTransposed(cout int) bool {
	if forceWeightGrad != 0 {
		return forceWeightGrad > 0
	}
	span, nr := g.kw*g.c, ownWidth()
	if nr == 0 { // no own kernels: the convolution goes through im2col, untransposed
		return false
	}
	tiles := func(m, n int) int { return (m + kernels.MR - 1) / kernels.MR * ((n + nr - 1) / nr) }
	return tiles(cout, span) < tiles(span, cout)
}

// forceWeightGrad makes weightGradTransposed answer true (> 0) or false (< 0) instead of
// counting tiles; tests set it to compare the two orientations.
var forceWeightGrad int

// untranspose writes the weight gradient wt, kh blocks of cout×kw·C (weightGradTransposed),
// as kh blocks of kw·C×cout to w.
func (g *convGeom) untranspose(wt []float64, cout int, w []float64) {
	span := g.kw * g.c
	for ky := 0; ky < g.kh; ky++ {
		src, dst := wt[ky*cout*span:(ky+1)*cout*span], w[ky*span*cout:(ky+1)*span*cout]
		for o := 0; o < cout; o++ {
			for i, v := range src[o*span : (o+1)*span] {
				dst[i*cout+o] = v
			}
		}
	}
}

// paddedInput returns the image x with its padding (x itself when unpadded).
func (g *convGeom) paddedInput(s *convScratch, x []float64) []float64 {
	if g.pt+g.pb+g.pl+g.pr == 0 {
		return x
	}
	hp, wp := g.padded()
	c := g.c
	s.xpad = sized(s.xpad, hp*wp*c)
	clear(s.xpad)
	for y := 0; y < g.h; y++ {
		copy(s.xpad[((y+g.pt)*wp+g.pl)*c:], x[y*g.w*c:(y+1)*g.w*c])
	}
	return s.xpad
}

// virtual reports the number of virtual output rows and whether they are the output's own
// rows (one output row, or a kernel one pixel wide, so that no row wraps).
func (g *convGeom) virtual() (rows int, direct bool) {
	_, wp := g.padded()
	return (g.oh-1)*wp + g.ow, g.oh == 1 || wp == g.ow
}

// forwardImage computes the output y of one image (of geometry g) from its padded input src.
func (p *convPass) forwardImage(s *convScratch, g *convGeom, src, y []float64) {
	_, wp := g.padded()
	c, cout, span := g.c, p.cout, g.kw*g.c
	m, direct := g.virtual()
	dst := y
	if !direct {
		s.yv = sized(s.yv, m*cout)
		dst = s.yv
	}
	for ky := 0; ky < g.kh; ky++ {
		var bias []float64
		if ky == 0 {
			if bias = p.bias; bias == nil {
				clear(dst)
			}
		}
		ownGemm(false, m, cout, span, src[ky*wp*c:], c, p.w[ky*span*cout:(ky+1)*span*cout], cout, bias, dst, cout)
	}
	if !direct {
		for oy := 0; oy < g.oh; oy++ {
			copy(y[oy*g.ow*cout:(oy+1)*g.ow*cout], dst[oy*wp*cout:])
		}
	}
}

// weightGradImage adds one image's Σ_ky P_kyᵀ·dYv to wpart. The rows that wrap add x·0 for
// the inputs they read, which is 0 for a finite x but NaN for a NaN or infinite one, and would
// make taps NaN that never multiply that input with an output's dY: when such an input lies
// where the wrapping rows read (wrapFinite), the image's gradient is taken output row by output
// row instead, over the real outputs only, so that a non-finite input makes the same entries
// of dW non-finite as the im2col path and the direct loops do.
func (p *convPass) weightGradImage(s *convScratch, g *convGeom, src, dy, wpart []float64) {
	_, wp := g.padded()
	c, cout, span := g.c, p.cout, g.kw*g.c
	m, direct := g.virtual()
	if !direct && !g.wrapFinite(src) {
		p.weightGradRows(g, src, dy, wpart)
		return
	}
	if p.wgTaps { // series of few taps: the product's sums without it
		p.weightGradSeries(s, g, src, dy, wpart)
		return
	}
	dyv := dy
	if !direct { // dY in virtual rows, zero in the rows that wrap
		s.dyv = sized(s.dyv, m*cout)
		dyv = s.dyv
		for oy := 0; oy < g.oh; oy++ {
			copy(dyv[oy*wp*cout:], dy[oy*g.ow*cout:(oy+1)*g.ow*cout])
			clear(dyv[(oy*wp+g.ow)*cout : min(m, (oy+1)*wp)*cout])
		}
	}
	if p.wgT { // wpart holds kh blocks of cout×span
		for ky := 0; ky < g.kh; ky++ {
			ownGemm(true, cout, span, m, dyv, cout, src[ky*wp*c:], c, nil, wpart[ky*cout*span:(ky+1)*cout*span], span)
		}
		return
	}
	for ky := 0; ky < g.kh; ky++ {
		ownGemm(true, span, cout, m, src[ky*wp*c:], c, dyv, cout, nil, wpart[ky*span*cout:(ky+1)*span*cout], cout)
	}
}

// wrapFinite reports whether the elements of the padded input src that the virtual rows
// which wrap read are all finite: for each pixel row r below the last, its last kw−1 pixels
// and the first kw−1 of row r+1, 2(kw−1)·C values per row.
func (g *convGeom) wrapFinite(src []float64) bool {
	hp, wp := g.padded()
	c := g.c
	for r := 0; r < hp-1; r++ {
		for _, v := range src[(r*wp+g.ow)*c : ((r+1)*wp+g.kw-1)*c] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	return true
}

// weightGradRows adds one image's weight gradient to wpart as weightGradImage does, one
// product per output row and kernel row over that row's real outputs only.
func (p *convPass) weightGradRows(g *convGeom, src, dy, wpart []float64) {
	_, wp := g.padded()
	c, cout, span := g.c, p.cout, g.kw*g.c
	for ky := 0; ky < g.kh; ky++ {
		for oy := 0; oy < g.oh; oy++ {
			a, d := src[(ky+oy)*wp*c:], dy[oy*g.ow*cout:(oy+1)*g.ow*cout]
			if p.wgT {
				ownGemm(true, cout, span, g.ow, d, cout, a, c, nil, wpart[ky*cout*span:(ky+1)*cout*span], span)
			} else {
				ownGemm(true, span, cout, g.ow, a, c, d, cout, nil, wpart[ky*span*cout:(ky+1)*span*cout], cout)
			}
		}
	}
}

// inputGradImage adds one image's input gradient, the full convolution of its padded dY with
// the flipped weights, to xg.
func (p *convPass) inputGradImage(s *convScratch, g *convGeom, dy, xg []float64) {
	c, cout := g.c, p.cout
	hq, wq := g.oh+2*(g.kh-1), g.ow+2*(g.kw-1)
	s.dypad = sized(s.dypad, hq*wq*cout)
	clear(s.dypad)
	for oy := 0; oy < g.oh; oy++ {
		copy(s.dypad[((oy+g.kh-1)*wq+g.kw-1)*cout:], dy[oy*g.ow*cout:(oy+1)*g.ow*cout])
	}
	m, v0 := (g.h-1)*wq+g.w, g.pt*wq+g.pl
	direct := g.h == 1 || wq == g.w
	dst := xg
	if !direct {
		s.dxv = sized(s.dxv, m*c)
		clear(s.dxv)
		dst = s.dxv
	}
	span := g.kw * cout
	for jy := 0; jy < g.kh; jy++ {
		ownGemm(false, m, c, span, s.dypad[(jy*wq+v0)*cout:], cout, p.wflip[jy*span*c:(jy+1)*span*c], c, nil, dst, c)
	}
	if !direct {
		for y := 0; y < g.h; y++ {
			addTo(xg[y*g.w*c:(y+1)*g.w*c], dst[y*wq*c:y*wq*c+g.w*c])
		}
	}
}

// inputGradCol adds the input gradient of the examples of block b through their patches:
// dcol = dY·Wᵀ, added back to the input positions by col2im (as the im2col path does).
func (p *convPass) inputGradCol(b int) {
	g := &p.g
	taps, cout, per := g.taps(), p.cout, g.out()
	e0, e1 := b*g.block(), min(p.n, (b+1)*g.block())
	buf := g.blockBuf()
	defer convBufs.Put(buf)
	dcol := (*buf)[:(e1-e0)*per*taps]
	gemm(false, true, (e1-e0)*per, taps, cout, 1, p.dy[e0*per*cout:e1*per*cout], cout, p.w, cout, 0, dcol, taps)
	(&convJob{g: *g, x: p.xg, col: dcol, first: e0, back: true}).Do(e0, e1)
}

// ownGemm is C = op(A)·B + C, or op(A)·B + 1·biasᵀ when bias is not nil, on the own kernels
// (kernels.Gemm), whose rows of A may overlap. Empty products, which the kernel declines, are
// done here as gemm does them: no rows or columns leave C as it is, no depth leaves C or sets
// it to the bias (a convolution with no output channels).
func ownGemm(tA bool, m, n, k int, a []float64, lda int, b []float64, ldb int, bias, c []float64, ldc int) {
	switch {
	case m == 0 || n == 0:
		return
	case k == 0:
		if bias != nil {
			for i := 0; i < m; i++ {
				copy(c[i*ldc:i*ldc+n], bias[:n])
			}
		}
		return
	}
	if !kernels.Gemm(tA, false, m, n, k, a, lda, b, ldb, bias, c, ldc, false) {
		panic("nn: the own product kernel declined a convolution's product")
	}
	ran(pathOwn)
}
