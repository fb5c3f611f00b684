package nn

import (
	"math"
	"slices"
	"unsafe"
)

// Float32 evaluation of a MADE.
//
// Density evaluation (log q(θ | x) of many pairs) spends most of its time in the MADEs'
// products. With Tape.Float32 set on a gradient-free tape, MADE.Forward runs them in float32,
// PyTorch's precision, on the float32 micro-kernel (16 lanes per AVX-512 register, twice the
// float64 kernel's), and skips the blocks that the masks zero:
//
//   - the inputs and every hidden layer's units are sorted by degree (context first), which
//     permutes the network without changing its function;
//   - a column of a hidden unit of degree d then reads a prefix of the sorted inputs (those of
//     degree ≤ d), and an output column of feature d a prefix of the hidden units (degree ≤ d),
//     so each panel of 32 columns multiplies only the prefix that its columns need.
//
// For a MADE of two features with context, a quarter of the hidden and output products are
// skipped. The results differ from float64 evaluation by float32 rounding (a relative 2⁻²⁴ per
// operation); they do not depend on the row's position in the batch.

// panel32 and tileRows32 are the width and height of the float32 micro-tile.
const (
	panel32    = 32
	tileRows32 = 6
)

// made32 is a MADE prepared for float32 evaluation.
type made32 struct {
	weights [][]float64 // the weights and biases it was made from, to notice updates
	masks   []*float64  // the masks it was made from
	inOrder []int       // column j of the first layer's input is MADE input inOrder[j]
	layers  []layer32
	// panel p of the last layer holds MADE outputs outStart[p] … outStart[p]+outCount[p]−1,
	// then padding
	outStart, outCount []int
}

// layer32 is one masked layer in float32, its outputs padded to whole panels.
type layer32 struct {
	in, cols int         // input width and padded output width (a multiple of panel32)
	panels   [][]float32 // panel p: depth[p]×panel32 weights, row r for sorted input r
	depth    []int       // the number of (sorted) inputs panel p reads
	bias     []float32   // cols values, 0 for padding
	floor    float32     // 0 for a fused ReLU, −Inf for none
}

// float32Forward says whether MADE.Forward takes the float32 path for tapes that ask for it:
// where the float32 micro-kernel exists (tests switch it on elsewhere, with the Go tile).
var float32Forward = hasFloat32Kernel

// Float32Kernel reports whether tapes with Float32 set evaluate MADEs in float32 here (on
// CPUs with AVX-512, in builds with assembly).
func Float32Kernel() bool { return float32Forward }

// forward32 returns the MADE's outputs computed in float32, or nil when this MADE cannot be
// evaluated so (a hidden activation other than ReLU).
func (m *MADE) forward32(tp *Tape, x, context *Tensor) *Tensor {
	p := m.plan32()
	if p == nil {
		return nil
	}
	n := x.Rows
	if n == 0 {
		return tp.tensor(0, m.Features*m.PerFeature, false)
	}
	rows := (n + tileRows32 - 1) / tileRows32 * tileRows32
	width := 0
	for _, l := range p.layers {
		width = max(width, l.cols)
	}
	buf := float32Bufs.get()
	defer float32Bufs.put(buf)
	need := rows * (len(p.inOrder) + 2*width)
	if cap(*buf) < need {
		*buf = make([]float32, need)
	}
	s := (*buf)[:need]
	a, s := s[:rows*len(p.inOrder)], s[rows*len(p.inOrder):]
	hidden := [2][]float32{s[:rows*width], s[rows*width:]}

	in := len(p.inOrder)
	for i := 0; i < n; i++ {
		row := a[i*in : i*in+in]
		for j, src := range p.inOrder {
			if src < m.Features {
				row[j] = float32(x.Data[i*x.Cols+src])
			} else {
				row[j] = float32(context.Data[i*context.Cols+src-m.Features])
			}
		}
	}
	clear(a[n*in:])
	lda := in
	last := len(p.layers) - 1
	for li, l := range p.layers[:last] {
		c := hidden[li%2][:rows*l.cols]
		l.apply(rows, a, lda, c)
		a, lda = c, l.cols
	}
	out := tp.tensor(n, m.Features*m.PerFeature, false)
	p.layers[last].applyTo64(n, a, lda, out.Data, out.Cols, p.outStart, p.outCount)
	return out
}

// apply sets c (rows×l.cols) to the layer's outputs for the rows×l.in inputs a (row stride
// lda); rows is a multiple of the micro-tile's height.
func (l *layer32) apply(rows int, a []float32, lda int, c []float32) {
	for p, w := range l.panels {
		j := p * panel32
		tiles32(rows/tileRows32, l.depth[p], a, lda, w, c[j:], l.cols, l.bias[j:j+panel32], l.floor)
	}
}

// applyTo64 sets the n×ldc float64 matrix c to the layer's outputs for the inputs a (row
// stride lda, rows padded to whole tiles): panel p's first count[p] columns go to columns
// start[p]… of c. The last, partial tile of rows goes through a small buffer.
func (l *layer32) applyTo64(n int, a []float32, lda int, c []float64, ldc int, start, count []int) {
	whole := n / tileRows32
	var buf [tileRows32 * 256]float64
	tail := buf[:]
	if tileRows32*ldc > len(buf) {
		tail = make([]float64, tileRows32*ldc)
	}
	rest := a[whole*tileRows32*lda:]
	for p, w := range l.panels {
		j := p * panel32
		tiles32to64(whole, l.depth[p], a, lda, w, c[start[p]:], ldc, l.bias[j:j+panel32], l.floor, count[p])
		if n > whole*tileRows32 {
			tiles32to64(1, l.depth[p], rest, lda, w, tail[start[p]:], ldc, l.bias[j:j+panel32], l.floor, count[p])
		}
	}
	copy(c[whole*tileRows32*ldc:n*ldc], tail)
}

// tiles32Go is the portable float32 micro-kernel (see sgemm6x32).
func tiles32Go(blocks, k int, a []float32, lda int, b, c []float32, ldc int, bias []float32, floor float32) {
	for r := 0; r < blocks*tileRows32; r++ {
		var acc [panel32]float32
		for l := 0; l < k; l++ {
			v := a[r*lda+l]
			for j, w := range b[l*panel32 : (l+1)*panel32] {
				acc[j] += v * w
			}
		}
		for j := range acc {
			y := acc[j] + bias[j]
			if y < floor {
				y = floor
			}
			c[r*ldc+j] = y
		}
	}
}

// tiles32to64Go is the portable sgemm6x32to64: tiles32Go storing the first count columns
// as float64.
func tiles32to64Go(blocks, k int, a []float32, lda int, b []float32, c []float64, ldc int, bias []float32, floor float32, count int) {
	t := make([]float32, tileRows32*panel32)
	for blk := 0; blk < blocks; blk++ {
		tiles32Go(1, k, a[blk*tileRows32*lda:], lda, b, t, panel32, bias, floor)
		for r := 0; r < tileRows32; r++ {
			for j, v := range t[r*panel32 : r*panel32+count] {
				c[(blk*tileRows32+r)*ldc+j] = float64(v)
			}
		}
	}
}

// float32Bufs holds the activations of float32 evaluations.
var float32Bufs freeList[[]float32]

// plan32 returns the MADE's float32 plan, made anew when its weights have changed since the
// last one (the check compares every weight: a few microseconds against the products'
// hundreds), or nil when the MADE has a hidden activation other than ReLU.
func (m *MADE) plan32() *made32 {
	if m.Activation != ReLU {
		return nil
	}
	if p := m.f32.Load(); p != nil && p.current(m) {
		return p
	}
	p := newMade32(m)
	m.f32.Store(p)
	return p
}

// current reports whether p was made from m's present weights and masks.
func (p *made32) current(m *MADE) bool {
	if len(p.weights) != 2*len(m.Layers) {
		return false
	}
	for l, lin := range m.Layers {
		if len(m.Masks[l]) == 0 || p.masks[l] != &m.Masks[l][0] ||
			!sameBits(p.weights[2*l], lin.W.Data) || !sameBits(p.weights[2*l+1], lin.B.Data) {
			return false
		}
	}
	return true
}

// sameBits reports whether a and b hold the same float64 bit patterns.
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 {
		return true
	}
	ab := unsafe.Slice((*byte)(unsafe.Pointer(&a[0])), 8*len(a))
	bb := unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), 8*len(b))
	return string(ab) == string(bb)
}

// newMade32 prepares m for float32 evaluation.
func newMade32(m *MADE) *made32 {
	p := &made32{}
	deg := make([]int, m.Features+m.Context) // degrees of the MADE's inputs
	for d := 0; d < m.Features; d++ {
		deg[d] = d + 1
	}
	p.inOrder = byDegree(deg)
	in := p.inOrder
	for l, lin := range m.Layers {
		p.weights = append(p.weights, slices.Clone(lin.W.Data), slices.Clone(lin.B.Data))
		p.masks = append(p.masks, &m.Masks[l][0])
		last := l+1 == len(m.Layers)
		var out []int // column j of the result is unit out[j] (−1: padding)
		if last {
			out = outputLayout(lin, m.Masks[l], in, m.Features, m.PerFeature)
		} else {
			d := hiddenDegrees(lin.W.Cols, m.Features, m.Context > 0)
			out = padTo(byDegree(d), panel32)
		}
		p.layers = append(p.layers, newLayer32(lin, m.Masks[l], in, out, !last))
		in = out
	}
	for q := 0; q < len(in); q += panel32 {
		start, count := 0, 0
		for j, u := range in[q : q+panel32] {
			switch {
			case u < 0:
			case count == 0:
				start, count = u, 1
			case u == start+j && count == j:
				count++
			default:
				panic("nn: float32 MADE: an output panel whose columns are not consecutive")
			}
		}
		p.outStart = append(p.outStart, start)
		p.outCount = append(p.outCount, count)
	}
	return p
}

// byDegree returns the indices 0…len(deg)−1 sorted by degree (stable).
func byDegree(deg []int) []int {
	idx := make([]int, len(deg))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return deg[a] - deg[b] })
	return idx
}

// padTo appends −1 to order up to a multiple of n.
func padTo(order []int, n int) []int {
	for len(order)%n != 0 {
		order = append(order, -1)
	}
	return order
}

// outputLayout places the output columns: either contiguously, or with each feature's block
// starting a panel, whichever reads fewer inputs in all (with two features of 23 outputs,
// aligned blocks let the first feature's panel read only the degree-0 hidden units).
func outputLayout(lin *Linear, mask []float64, in []int, features, perFeature int) []int {
	contiguous := make([]int, features*perFeature)
	for j := range contiguous {
		contiguous[j] = j
	}
	contiguous = padTo(contiguous, panel32)
	var aligned []int
	for d := 0; d < features; d++ {
		for q := 0; q < perFeature; q++ {
			aligned = append(aligned, d*perFeature+q)
		}
		aligned = padTo(aligned, panel32)
	}
	if work(lin, mask, in, aligned) < work(lin, mask, in, contiguous) {
		return aligned
	}
	return contiguous
}

// work is the number of weights a layer with this column order multiplies per row.
func work(lin *Linear, mask []float64, in, out []int) int {
	w := 0
	for p := 0; p < len(out); p += panel32 {
		w += panelDepth(lin, mask, in, out[p:p+panel32])
	}
	return w
}

// panelDepth returns the length of the prefix of inputs in that the columns out read: one
// past the last input with an unmasked weight into any of them.
func panelDepth(lin *Linear, mask []float64, in, out []int) int {
	for r := len(in) - 1; r >= 0; r-- {
		if in[r] < 0 {
			continue
		}
		for _, j := range out {
			if j >= 0 && mask[in[r]*lin.W.Cols+j] != 0 {
				return r + 1
			}
		}
	}
	return 0
}

// newLayer32 packs lin's masked weights for inputs in order in and outputs in order out.
func newLayer32(lin *Linear, mask []float64, in, out []int, relu bool) layer32 {
	l := layer32{in: len(in), cols: len(out), bias: make([]float32, len(out)), floor: float32(math.Inf(-1))}
	if relu {
		l.floor = 0
	}
	cols := lin.W.Cols
	for j, u := range out {
		if u >= 0 {
			l.bias[j] = float32(lin.B.Data[u])
		}
	}
	for p := 0; p < len(out); p += panel32 {
		cs := out[p : p+panel32]
		depth := panelDepth(lin, mask, in, cs)
		w := make([]float32, max(depth, 1)*panel32) // never empty: the kernel takes its address
		for r := 0; r < depth; r++ {
			if in[r] < 0 {
				continue
			}
			for q, u := range cs {
				if u >= 0 {
					w[r*panel32+q] = float32(lin.W.Data[in[r]*cols+u] * mask[in[r]*cols+u])
				}
			}
		}
		l.panels = append(l.panels, w)
		l.depth = append(l.depth, depth)
	}
	return l
}
