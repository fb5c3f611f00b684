package nn

import (
	"fmt"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Tape records the operations of one forward pass so that Backward can propagate gradients
// in reverse order. Operations are methods on Tape; their results live in storage owned by
// the tape and reused after Reset, so a training loop that runs the same computation every
// step allocates nothing once the first step has sized the buffers.
//
// A Tape is not safe for concurrent use; use one tape per goroutine. Parameters shared between
// tapes accumulate gradients without synchronization, so do not run Backward concurrently on
// tapes that share parameters.
type Tape struct {
	// NoGrad turns recording off: results carry no gradient and Backward has nothing to do.
	// Set it for inference (sampling, evaluation) to skip the bookkeeping.
	NoGrad bool

	nodes   []node
	tensors []*Tensor
	nt      int
	floats  [][]float64
	nf      int
	ints    [][]int
	ni      int

	tensors32 []*Tensor32 // the float32 path (tensor32.go)
	nt32      int
	floats32  [][]float32
	nf32      int
}

// node is one recorded operation. back adds the gradient of out to its inputs' gradients; it
// is a plain function (never a closure) so that recording allocates nothing.
type node struct {
	back    func(n *node)
	out     *Tensor
	a, b, c *Tensor
	s, s2   []float64
	s3      []float64
	idx     []int
	out32   *Tensor32 // the result of a float32 op, with out nil (tensor32.go)
	a32     *Tensor32
	f, f2   []float32
	k       float64
	i, j    int
	op      Op
}

// NewTape returns an empty tape.
func NewTape() *Tape { return &Tape{} }

// Reset forgets the recorded operations and makes all tensors returned by the tape since the
// last Reset available for reuse. Parameter gradients are not touched (see Optimizer.ZeroGrad).
func (tp *Tape) Reset() {
	for i := range tp.nodes {
		if op := tp.nodes[i].op; op != nil {
			op.Release()
		}
		tp.nodes[i] = node{}
	}
	tp.nodes = tp.nodes[:0]
	tp.nt, tp.nf, tp.ni, tp.nt32, tp.nf32 = 0, 0, 0, 0, 0
}

// Len returns the number of operations recorded since the last Reset.
func (tp *Tape) Len() int { return len(tp.nodes) }

// Backward seeds the gradient of loss, which must be 1×1, with 1 and propagates it through
// every recorded operation in reverse order. Gradients accumulate into the Grad of parameters
// and variables; call it once per Reset.
func (tp *Tape) Backward(loss *Tensor) {
	if loss.Rows != 1 || loss.Cols != 1 {
		panic(fmt.Sprintf("nn: Backward of a %d×%d tensor, want a 1×1 loss", loss.Rows, loss.Cols))
	}
	if loss.Grad == nil {
		return
	}
	loss.Grad[0] += 1
	tp.backwardFrom()
}

// BackwardWith propagates a given upstream gradient (same shape as out) through the tape.
// It is Backward for a non-scalar output, e.g. a vector-Jacobian product.
func (tp *Tape) BackwardWith(out *Tensor, grad []float64) {
	if len(grad) != out.Len() {
		panic(fmt.Sprintf("nn: BackwardWith: gradient has %d values, output %d×%d", len(grad), out.Rows, out.Cols))
	}
	if out.Grad == nil {
		return
	}
	floats.Add(out.Grad, grad) // out.Grad[i] += grad[i], in gonum's assembly
	tp.backwardFrom()
}

func (tp *Tape) backwardFrom() {
	for i := len(tp.nodes) - 1; i >= 0; i-- {
		n := &tp.nodes[i]
		if n.out != nil && n.out.Grad != nil || n.out32 != nil && n.out32.Grad != nil {
			n.back(n)
		}
	}
}

// record appends a node and returns it for the caller to fill in.
func (tp *Tape) record(back func(*node), out, a, b, c *Tensor) *node {
	tp.nodes = append(tp.nodes, node{back: back, out: out, a: a, b: b, c: c})
	return &tp.nodes[len(tp.nodes)-1]
}

// grads reports whether an operation on the given inputs must be recorded.
func (tp *Tape) grads(ts ...*Tensor) bool {
	if tp.NoGrad {
		return false
	}
	for _, t := range ts {
		if t != nil && t.Grad != nil {
			return true
		}
	}
	return false
}

// Op is a differentiable operation defined outside this package (the transforms of the
// flows are): its forward pass computes its results into tensors from Output, and Record puts
// it on the tape, whose backward pass calls Backward in reverse order of recording. Check a
// new op's Backward with GradientError.
type Op interface {
	// Backward adds the gradients of the op's results (their Grad) to the Grad of its inputs
	// (those that have one).
	Backward()
	// Release is called by Reset: the tape refers to the op no more, and the op may be
	// reused. Ops taken from a free list go back to it here, so that a training step that
	// records the same operations allocates nothing once the first step has sized them.
	Release()
}

// Record puts op on the tape; out is one of its results, and Backward skips the op when out
// has no gradient. Record it only when RequiresGrad said so for its inputs.
func (tp *Tape) Record(op Op, out *Tensor) {
	tp.record(backOp, out, nil, nil, nil).op = op
}

func backOp(n *node) { n.op.Backward() }

// RequiresGrad reports whether an operation on the given inputs must be recorded: the tape
// records (NoGrad is off) and some input has a gradient. An op's results get gradients
// (Output with grad set) exactly when it does.
func (tp *Tape) RequiresGrad(ts ...*Tensor) bool { return tp.grads(ts...) }

// Output returns a rows×cols tensor owned by the tape, for a result of an op defined outside
// this package; it is reused after Reset. Its data is not cleared; its gradient, with grad
// set, is zeroed (and nil otherwise).
func (tp *Tape) Output(rows, cols int, grad bool) *Tensor { return tp.tensor(rows, cols, grad) }

// Scratch returns a float slice of length n owned by the tape, for what an op saves between
// its forward and backward passes; it is valid until Reset and not cleared.
func (tp *Tape) Scratch(n int) []float64 { return tp.scratch(n) }

// ScratchInts is Scratch for ints.
func (tp *Tape) ScratchInts(n int) []int { return tp.scratchInts(n) }

// ScratchMark returns a mark for ReleaseScratch: the number of float scratch slices handed
// out since Reset.
func (tp *Tape) ScratchMark() int { return tp.nf }

// ReleaseScratch gives back the float scratch slices handed out since ScratchMark returned
// mark, for the next calls of Scratch to reuse (their contents become invalid). Evaluations
// repeated many times between resets (one per feature and transform when a flow samples)
// reuse memory still in cache this way.
func (tp *Tape) ReleaseScratch(mark int) {
	if mark < 0 || mark > tp.nf {
		panic(fmt.Sprintf("nn: ReleaseScratch(%d) with %d scratch slices in use", mark, tp.nf))
	}
	tp.nf = mark
}

// tensor returns a rows×cols tape-owned tensor. Its data is not cleared; its gradient, if
// requested, is zeroed.
func (tp *Tape) tensor(rows, cols int, grad bool) *Tensor {
	t := nextOf(&tp.tensors, &tp.nt)
	t.Rows, t.Cols = rows, cols
	t.Data, t.Grad = resize(t.Data, &t.gbuf, rows*cols, grad)
	return t
}

// nextOf returns the next of the values of list handed out since Reset (*used of them so
// far), appending a new one when all are in use.
func nextOf[T any](list *[]*T, used *int) *T {
	if *used == len(*list) {
		*list = append(*list, new(T))
	}
	*used++
	return (*list)[*used-1]
}

// resize returns data with length n (reallocated only when its capacity is short) and, with
// grad, a zeroed gradient of length n kept in *gbuf, or else nil: the storage of a tape-owned
// tensor.
func resize[T float32 | float64](data []T, gbuf *[]T, n int, grad bool) ([]T, []T) {
	if cap(data) < n {
		data = make([]T, n)
	}
	if !grad {
		return data[:n], nil
	}
	if cap(*gbuf) < n {
		*gbuf = make([]T, n)
	}
	g := (*gbuf)[:n]
	clear(g)
	return data[:n], g
}

// scratch returns a tape-owned float slice of length n, valid until Reset. Not cleared.
func (tp *Tape) scratch(n int) []float64 { return nextBuf(&tp.floats, &tp.nf, n) }

// scratchInts returns a tape-owned int slice of length n, valid until Reset. Not cleared.
func (tp *Tape) scratchInts(n int) []int { return nextBuf(&tp.ints, &tp.ni, n) }

// nextBuf returns the next of the buffers bufs handed out since Reset (*used of them so far),
// grown to length n if it is shorter.
func nextBuf[T any](bufs *[][]T, used *int, n int) []T {
	if *used == len(*bufs) {
		*bufs = append(*bufs, nil)
	}
	s := (*bufs)[*used]
	if cap(s) < n {
		s = make([]T, n)
		(*bufs)[*used] = s
	}
	*used++
	return s[:n]
}

// New returns a zeroed rows×cols constant tensor owned by the tape (for inputs and targets).
func (tp *Tape) New(rows, cols int) *Tensor {
	t := tp.tensor(rows, cols, false)
	clear(t.Data)
	return t
}

// Const returns a tape-owned rows×cols constant holding a copy of data.
func (tp *Tape) Const(rows, cols int, data []float64) *Tensor {
	if len(data) != rows*cols {
		panic(fmt.Sprintf("nn: Const %d×%d needs %d values, got %d", rows, cols, rows*cols, len(data)))
	}
	t := tp.tensor(rows, cols, false)
	copy(t.Data, data)
	return t
}

// Scalar returns a tape-owned 1×1 constant.
func (tp *Tape) Scalar(v float64) *Tensor {
	t := tp.tensor(1, 1, false)
	t.Data[0] = v
	return t
}

// FromDense returns a tape-owned constant copy of m.
func (tp *Tape) FromDense(m mat.Matrix) *Tensor {
	r, c := m.Dims()
	t := tp.tensor(r, c, false)
	if d, ok := m.(*mat.Dense); ok {
		raw := d.RawMatrix()
		for i := 0; i < r; i++ {
			copy(t.Data[i*c:(i+1)*c], raw.Data[i*raw.Stride:i*raw.Stride+c])
		}
		return t
	}
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			t.Data[i*c+j] = m.At(i, j)
		}
	}
	return t
}

// Gather returns a tape-owned constant whose row k is row idx[k] of m: the usual way to
// take a minibatch out of a data set without allocating.
func (tp *Tape) Gather(m *mat.Dense, idx []int) *Tensor {
	r, c := m.Dims()
	raw := m.RawMatrix()
	t := tp.tensor(len(idx), c, false)
	for k, i := range idx {
		if i < 0 || i >= r {
			panic(fmt.Sprintf("nn: Gather: row index %d out of range [0,%d)", i, r))
		}
		copy(t.Data[k*c:(k+1)*c], raw.Data[i*raw.Stride:i*raw.Stride+c])
	}
	return t
}

// Variable returns a tape-owned tensor holding a copy of data that receives gradients; after
// Backward its Grad holds d loss / d data. Useful for gradients with respect to inputs.
func (tp *Tape) Variable(rows, cols int, data []float64) *Tensor {
	if len(data) != rows*cols {
		panic(fmt.Sprintf("nn: Variable %d×%d needs %d values, got %d", rows, cols, rows*cols, len(data)))
	}
	t := tp.tensor(rows, cols, !tp.NoGrad)
	copy(t.Data, data)
	return t
}
