package flow

import (
	"math"
	"slices"
	"unsafe"

	"github.com/gosbi/gosbi/sbi/internal/kernels"
	"github.com/gosbi/gosbi/sbi/internal/par"

	"github.com/gosbi/gosbi/sbi/nn"
)

// Float32 evaluation of a MADE.
//
// Density evaluation (log q(θ | x) of many pairs) spends most of its time in the MADEs'
// products. Evaluated with EvalConfig.Float32 on a gradient-free tape, a MADE runs them in float32,
// PyTorch's precision, on the float32 micro-kernel (16 lanes per AVX-512 register, twice the
// float64 kernel's), with its hidden activation (nn.ReLU fused into the kernel, nn.Tanh by
// kernels.Tanh32 on each layer's outputs), and skips the blocks that the masks zero:
//
//   - the inputs and every hidden layer's units are sorted by degree (context first), which
//     permutes the network without changing its function;
//   - a column of a hidden unit of degree d then reads a prefix of the sorted inputs (those of
//     degree ≤ d), and an output column of feature d a prefix of the hidden units (degree ≤ d),
//     so each panel of 32 columns multiplies only the prefix that its columns need.
//
// For a MADE of two features with context, a quarter of the hidden and output products are
// skipped. Sampling inverts one feature at a time (MADEFeature.Eval); on the same plan it
// multiplies only the leading panels of each layer, which hold the units of degree ≤ d that
// reach feature d's outputs. The results differ from float64 evaluation by float32 rounding (a
// relative 2⁻²⁴ per operation); they do not depend on the row's position in the batch. A row
// with an input beyond inputLimit, where a float32 sum could overflow, is evaluated again in
// float64. The
// masked layers are those of Germain et al. (2015), eq. 10: h = act(x·(W ⊙ M) + b).

// made32 is a MADE prepared for float32 evaluation.
type made32 struct {
	features, context, perFeature int

	weights [][]float64 // the weights and biases it was made from, to notice updates
	masks   []*float64  // the masks it was made from
	inOrder []int       // column j of the first layer's input is MADE input inOrder[j]
	layers  []layer32
	width   int     // the widest layer's padded output width
	reach   [][]int // reach[l][d]: the leading panels of hidden layer l that hold its units of degree ≤ d
	// limit is the largest |input| for which no float32 sum of the network can overflow (see
	// inputLimit); rows with a larger input (or a NaN) are evaluated in float64
	limit float64
	// panel p of the last layer holds MADE outputs outStart[p] … outStart[p]+outCount[p]−1,
	// then padding
	outStart, outCount []int
}

// layer32 is one masked layer in float32, its outputs padded to whole panels.
type layer32 struct {
	cols   int         // padded output width (a multiple of kernels.Panel32)
	panels [][]float32 // panel p: depth[p]×kernels.Panel32 weights, row r for sorted input r
	depth  []int       // the number of (sorted) inputs panel p reads
	bias   []float32   // cols values, 0 for padding
	floor  float32     // 0 for a fused nn.ReLU, −Inf for none
	tanh   bool        // nn.Tanh applied to the outputs (padding stays 0)
}

// float32Forward says whether MADE evaluations take the float32 path when asked to:
// where the float32 micro-kernel exists (tests switch it on elsewhere, with the Go tile).
var float32Forward = kernels.Float32

// Float32Kernel reports whether evaluations with EvalConfig.Float32 run the MADEs in float32
// here (on CPUs with AVX-512, in builds with assembly).
func Float32Kernel() bool { return float32Forward }

// forward32 returns the MADE's outputs computed in float32, or nil when this MADE cannot be
// evaluated so (a hidden activation other than nn.ReLU and nn.Tanh).
func (m *MADE) forward32(tp *nn.Tape, x, context *nn.Tensor) *nn.Tensor {
	p := m.plan32()
	if p == nil {
		return nil
	}
	out := tp.Output(x.Rows, m.Features*m.PerFeature, false)
	p.run(x.Rows, func(i int, row []float32) {
		for j, src := range p.inOrder {
			if src < m.Features {
				row[j] = float32(x.Data[i*x.Cols+src])
			} else {
				row[j] = float32(context.Data[i*context.Cols+src-m.Features])
			}
		}
	}, -1, out.Data)
	// rows beyond the float32 plan's reach, again in float64
	w := out.Cols
	for i := 0; i < x.Rows; i++ {
		xi := x.Data[i*x.Cols : (i+1)*x.Cols]
		var ci []float64
		if context != nil {
			ci = context.Data[i*context.Cols : (i+1)*context.Cols]
		}
		if p.within(xi) && p.within(ci) {
			continue
		}
		var c *nn.Tensor
		if ci != nil {
			c = nn.NewTensor(1, len(ci), ci)
		}
		copy(out.Data[i*w:(i+1)*w], m.forward64(tp, nn.NewTensor(1, len(xi), xi), c).Data)
	}
	return out
}

// within reports whether every |v| is at most the plan's input limit (false for a NaN).
func (p *made32) within(v []float64) bool {
	for _, a := range v {
		if !(math.Abs(a) <= p.limit) {
			return false
		}
	}
	return true
}

// overflowMargin is the largest magnitude inputLimit lets a float32 sum reach: half of
// float32's largest value, leaving room for the rounding of the sums and of the weights.
const overflowMargin = math.MaxFloat32 / 2

// inputLimit returns the largest r such that, for inputs of magnitude at most r, no
// pre-activation of m exceeds overflowMargin, nor therefore any partial sum of it in float32:
// with N_l the largest sum of |masked weights| into a unit of layer l and B_l the largest
// |bias|, a layer's pre-activations are bounded by N_l·h + B_l for inputs bounded by h, and
// the next layer's inputs by that bound again (nn.ReLU) or by 1 (nn.Tanh). It returns −1
// when even zero inputs reach the margin (weights near float32's range, or NaN).
func inputLimit(m *MADE) float64 {
	a, c := 1.0, 0.0 // the current layer's inputs are bounded by a·r + c
	limit := math.Inf(1)
	for l, lin := range m.Layers {
		norm, bias := 0.0, 0.0
		for j := 0; j < lin.W.Cols; j++ {
			s := 0.0
			for i := 0; i < lin.W.Rows; i++ {
				s += math.Abs(lin.W.Data[i*lin.W.Cols+j] * m.Masks[l][i*lin.W.Cols+j])
			}
			norm = max(norm, s)
			bias = max(bias, math.Abs(lin.B.Data[j]))
		}
		a, c = norm*a, norm*c+bias
		if !(c < overflowMargin) {
			return -1
		}
		if a > 0 {
			limit = min(limit, (overflowMargin-c)/a)
		}
		if m.Activation == nn.Tanh {
			a, c = 0, 1
		}
	}
	return limit
}

// evalFeature writes the n×PerFeature outputs of feature d to dst for the inputs x (n rows
// of Features values, the first d read) and the context: n rows of ctx, or the vector bound
// for every row when ctx is nil. Only the panels that lead to feature d's outputs are
// multiplied: in each layer, the prefix of units of degree ≤ d.
func (p *made32) evalFeature(d int, dst, x, ctx, bound []float64, n int) {
	p.run(n, func(i int, row []float32) {
		for j, src := range p.inOrder {
			switch {
			case src < d:
				row[j] = float32(x[i*p.features+src])
			case src < p.features:
				row[j] = 0 // features ≥ d: masked out of feature d's outputs
			case ctx != nil:
				row[j] = float32(ctx[i*p.context+src-p.features])
			default:
				row[j] = float32(bound[src-p.features])
			}
		}
	}, d, dst)
}

// run evaluates the plan on n rows, fill writing row i of the inputs (in the order of
// inOrder): all outputs into dst (n×Features·PerFeature) when feature < 0, or feature's
// outputs into dst (n×PerFeature).
func (p *made32) run(n int, fill func(i int, row []float32), feature int, dst []float64) {
	if n == 0 {
		return
	}
	rows := (n + kernels.TileRows32 - 1) / kernels.TileRows32 * kernels.TileRows32
	width := p.width
	buf := float32Bufs.Get()
	defer float32Bufs.Put(buf)
	in := len(p.inOrder)
	need := rows * (in + 2*width)
	if cap(*buf) < need {
		*buf = make([]float32, need)
	}
	s := (*buf)[:need]
	a, s := s[:rows*in], s[rows*in:]
	hidden := [2][]float32{s[:rows*width], s[rows*width:]}
	for i := 0; i < n; i++ {
		fill(i, a[i*in:(i+1)*in])
	}
	clear(a[n*in:])

	lda, depth := in, in // depth: the inputs computed (all of them, then the panels evaluated)
	last := len(p.layers) - 1
	for li, l := range p.layers[:last] {
		panels := len(l.panels)
		if feature >= 0 {
			panels = p.reach[li][feature]
		}
		c := hidden[li%2][:rows*l.cols]
		l.apply(rows, a, lda, c, 0, panels, depth)
		a, lda, depth = c, l.cols, panels*kernels.Panel32
	}
	out := &p.layers[last]
	if feature < 0 {
		out.applyTo64(n, a, lda, dst, p.features*p.perFeature, 0, len(out.panels), 0, p.outStart, p.outCount, depth)
		return
	}
	lo, hi := feature*p.perFeature, (feature+1)*p.perFeature
	p0, p1, direct := p.outPanels(lo, hi)
	if direct {
		out.applyTo64(n, a, lda, dst, p.perFeature, p0, p1, lo, p.outStart, p.outCount, depth)
		return
	}
	// panels shared with other features (a contiguous layout): multiply them in float32, then
	// copy this feature's columns
	c := hidden[last%2][:rows*out.cols]
	out.apply(rows, a, lda, c, p0, p1, depth)
	for q := p0; q < p1; q++ {
		for t := 0; t < p.outCount[q]; t++ {
			col := p.outStart[q] + t
			if col < lo || col >= hi {
				continue
			}
			for i := 0; i < n; i++ {
				dst[i*p.perFeature+col-lo] = float64(c[i*out.cols+q*kernels.Panel32+t])
			}
		}
	}
}

// outPanels returns the output panels [p0, p1) that hold outputs lo…hi−1, and whether they
// hold nothing else.
func (p *made32) outPanels(lo, hi int) (p0, p1 int, direct bool) {
	p0, direct = -1, true
	for q, start := range p.outStart {
		end := start + p.outCount[q]
		if p.outCount[q] == 0 || end <= lo || start >= hi {
			continue
		}
		if p0 < 0 {
			p0 = q
		}
		p1 = q + 1
		direct = direct && start >= lo && end <= hi
	}
	return p0, p1, direct
}

// apply sets panels p0…p1−1 of c (rows×l.cols) to the layer's outputs for the rows of
// inputs a (row stride lda), of which only the first depth columns are valid; rows is a
// multiple of the micro-tile's height.
func (l *layer32) apply(rows int, a []float32, lda int, c []float32, p0, p1, depth int) {
	for p := p0; p < p1; p++ {
		j := p * kernels.Panel32
		kernels.Tiles32(rows/kernels.TileRows32, min(l.depth[p], depth), a, lda, l.panels[p], c[j:], l.cols, l.bias[j:j+kernels.Panel32], l.floor)
	}
	if !l.tanh || p0 == p1 {
		return
	}
	lo, hi := p0*kernels.Panel32, p1*kernels.Panel32
	if lo == 0 && hi == l.cols { // every panel: one contiguous block
		kernels.Tanh32(c[:rows*l.cols], c[:rows*l.cols])
		return
	}
	for r := 0; r < rows; r++ {
		row := c[r*l.cols+lo : r*l.cols+hi]
		kernels.Tanh32(row, row)
	}
}

// applyTo64 writes panels p0…p1−1 of the layer's outputs, as float64, to the n×ldc matrix c
// for the inputs a (row stride lda, rows padded to whole tiles, the first depth columns
// valid): panel p's first count[p] columns go to columns start[p]−shift… of c. The last,
// partial tile of rows goes through a small buffer.
func (l *layer32) applyTo64(n int, a []float32, lda int, c []float64, ldc, p0, p1, shift int, start, count []int, depth int) {
	whole := n / kernels.TileRows32
	var buf [kernels.TileRows32 * 256]float64
	tail := buf[:]
	if kernels.TileRows32*ldc > len(buf) {
		tail = make([]float64, kernels.TileRows32*ldc)
	}
	rest := a[whole*kernels.TileRows32*lda:]
	for p := p0; p < p1; p++ {
		j, k, at := p*kernels.Panel32, min(l.depth[p], depth), start[p]-shift
		kernels.Tiles32to64(whole, k, a, lda, l.panels[p], c[at:], ldc, l.bias[j:j+kernels.Panel32], l.floor, count[p])
		if n > whole*kernels.TileRows32 {
			kernels.Tiles32to64(1, k, rest, lda, l.panels[p], tail[at:], ldc, l.bias[j:j+kernels.Panel32], l.floor, count[p])
		}
	}
	copy(c[whole*kernels.TileRows32*ldc:n*ldc], tail)
}

// float32Bufs holds the activations of float32 evaluations.
var float32Bufs par.FreeList[[]float32]

// plan32 returns the MADE's float32 plan, made anew when its weights have changed since the
// last one (the check reads every weight once, against the products' one multiply-add per
// weight and row), or nil when the MADE has a hidden activation other than nn.ReLU and nn.Tanh.
func (m *MADE) plan32() *made32 {
	if m.Activation != nn.ReLU && m.Activation != nn.Tanh {
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
	p := &made32{features: m.Features, context: m.Context, perFeature: m.PerFeature}
	deg := make([]int, m.Features+m.Context) // degrees of the MADE's inputs
	for d := 0; d < m.Features; d++ {
		deg[d] = d + 1
	}
	p.limit = inputLimit(m)
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
			out = padTo(byDegree(d), kernels.Panel32)
			p.reach = append(p.reach, reach(d, m.Features))
		}
		act := m.Activation
		if last {
			act = nn.Identity
		}
		p.layers = append(p.layers, newLayer32(lin, m.Masks[l], in, out, act))
		p.width = max(p.width, len(out))
		in = out
	}
	for q := 0; q < len(in); q += kernels.Panel32 {
		start, count := 0, 0
		for j, u := range in[q : q+kernels.Panel32] {
			switch {
			case u < 0:
			case count == 0:
				start, count = u, 1
			case u == start+j && count == j:
				count++
			default:
				panic("flow: float32 MADE: an output panel whose columns are not consecutive")
			}
		}
		p.outStart = append(p.outStart, start)
		p.outCount = append(p.outCount, count)
	}
	return p
}

// reach returns, for each feature d, the number of panels that hold every unit of degree ≤ d
// once the units are sorted by degree.
func reach(deg []int, features int) []int {
	r := make([]int, features)
	for d := range r {
		n := 0
		for _, g := range deg {
			if g <= d {
				n++
			}
		}
		r[d] = (n + kernels.Panel32 - 1) / kernels.Panel32
	}
	return r
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
func outputLayout(lin *nn.Linear, mask []float64, in []int, features, perFeature int) []int {
	contiguous := make([]int, features*perFeature)
	for j := range contiguous {
		contiguous[j] = j
	}
	contiguous = padTo(contiguous, kernels.Panel32)
	var aligned []int
	for d := 0; d < features; d++ {
		for q := 0; q < perFeature; q++ {
			aligned = append(aligned, d*perFeature+q)
		}
		aligned = padTo(aligned, kernels.Panel32)
	}
	if work(lin, mask, in, aligned) < work(lin, mask, in, contiguous) {
		return aligned
	}
	return contiguous
}

// work is the number of weights a layer with this column order multiplies per row.
func work(lin *nn.Linear, mask []float64, in, out []int) int {
	w := 0
	for p := 0; p < len(out); p += kernels.Panel32 {
		w += panelDepth(lin, mask, in, out[p:p+kernels.Panel32])
	}
	return w
}

// panelDepth returns the length of the prefix of inputs in that the columns out read: one
// past the last input with an unmasked weight into any of them.
func panelDepth(lin *nn.Linear, mask []float64, in, out []int) int {
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
func newLayer32(lin *nn.Linear, mask []float64, in, out []int, act nn.Activation) layer32 {
	l := layer32{cols: len(out), bias: make([]float32, len(out)), floor: float32(math.Inf(-1)), tanh: act == nn.Tanh}
	if act == nn.ReLU {
		l.floor = 0
	}
	cols := lin.W.Cols
	for j, u := range out {
		if u >= 0 {
			l.bias[j] = float32(lin.B.Data[u])
		}
	}
	for p := 0; p < len(out); p += kernels.Panel32 {
		cs := out[p : p+kernels.Panel32]
		depth := panelDepth(lin, mask, in, cs)
		w := make([]float32, max(depth, 1)*kernels.Panel32) // never empty: the kernel takes its address
		for r := 0; r < depth; r++ {
			if in[r] < 0 {
				continue
			}
			for q, u := range cs {
				if u >= 0 {
					w[r*kernels.Panel32+q] = float32(lin.W.Data[in[r]*cols+u] * mask[in[r]*cols+u])
				}
			}
		}
		l.panels = append(l.panels, w)
		l.depth = append(l.depth, depth)
	}
	return l
}
