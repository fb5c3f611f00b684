package nn

import (
	"fmt"
	"math/rand/v2"
)

// Linear is the affine layer y = x·W + b with W of shape In×Out and b of shape 1×Out.
type Linear struct {
	In, Out int
	W, B    *Param
}

// NewLinear returns a Linear layer initialized like PyTorch's (see InitLinear) from rng.
// name prefixes the parameter names (name+".w", name+".b").
func NewLinear(rng *rand.Rand, name string, in, out int) *Linear {
	if in < 1 || out < 1 {
		panic(fmt.Sprintf("nn: NewLinear %d→%d, want positive sizes", in, out))
	}
	l := &Linear{In: in, Out: out, W: NewParam(name+".w", in, out), B: NewParam(name+".b", 1, out)}
	InitLinear(l.W, l.B, rng)
	return l
}

// Forward returns x·W + b for x of shape n×In.
func (l *Linear) Forward(tp *Tape, x *Tensor) *Tensor {
	return tp.Linear(x, l.W.Tensor, l.B.Tensor)
}

// Params returns W and b.
func (l *Linear) Params() []*Param { return []*Param{l.W, l.B} }

// MLP is a multilayer perceptron: Linear layers with Activation between them and
// OutActivation (Identity by default) after the last.
type MLP struct {
	Layers        []*Linear
	Activation    Activation
	OutActivation Activation
}

// NewMLP returns an MLP with layer sizes sizes[0] → sizes[1] → … → sizes[len−1], for
// example []int{8, 128, 128, 1}, with act between layers, initialized from rng.
func NewMLP(rng *rand.Rand, sizes []int, act Activation) *MLP {
	if len(sizes) < 2 {
		panic(fmt.Sprintf("nn: NewMLP needs at least input and output sizes, got %v", sizes))
	}
	m := &MLP{Activation: act}
	for i := 0; i+1 < len(sizes); i++ {
		m.Layers = append(m.Layers, NewLinear(rng, fmt.Sprintf("mlp.%d", i), sizes[i], sizes[i+1]))
	}
	return m
}

// In returns the input width.
func (m *MLP) In() int { return m.Layers[0].In }

// Out returns the output width.
func (m *MLP) Out() int { return m.Layers[len(m.Layers)-1].Out }

// Forward applies the network to x (n×In) and returns n×Out.
func (m *MLP) Forward(tp *Tape, x *Tensor) *Tensor {
	for i, l := range m.Layers {
		act := m.Activation
		if i+1 == len(m.Layers) {
			act = m.OutActivation
		}
		x = tp.LinearAct(x, l.W.Tensor, l.B.Tensor, act)
	}
	return x
}

// Params returns the parameters of all layers in order.
func (m *MLP) Params() []*Param {
	var ps []*Param
	for _, l := range m.Layers {
		ps = append(ps, l.Params()...)
	}
	return ps
}

// ResidualMLP is a residual network: a Linear layer to the hidden width, Blocks residual blocks
// h ← h + L₂(act(L₁(act(h)))) (pre-activation, as in nflows' ResidualNet and sbi's resnet
// classifier), and a Linear layer to the output.
type ResidualMLP struct {
	In, Hidden, Out int
	Activation      Activation
	First, Last     *Linear
	Blocks          [][2]*Linear
}

// NewResidualMLP returns a residual MLP initialized from rng. The second layer of every block
// starts near zero (uniform on ±1e-3, as nflows does) so that each block starts close to the
// identity.
func NewResidualMLP(rng *rand.Rand, in, hidden, out, blocks int, act Activation) *ResidualMLP {
	if blocks < 0 {
		panic(fmt.Sprintf("nn: NewResidualMLP with %d blocks", blocks))
	}
	r := &ResidualMLP{In: in, Hidden: hidden, Out: out, Activation: act,
		First: NewLinear(rng, "res.in", in, hidden)}
	for b := 0; b < blocks; b++ {
		l1 := NewLinear(rng, fmt.Sprintf("res.%d.0", b), hidden, hidden)
		l2 := NewLinear(rng, fmt.Sprintf("res.%d.1", b), hidden, hidden)
		InitUniform(l2.W, rng, 1e-3)
		InitUniform(l2.B, rng, 1e-3)
		r.Blocks = append(r.Blocks, [2]*Linear{l1, l2})
	}
	r.Last = NewLinear(rng, "res.out", hidden, out)
	return r
}

// Forward returns the n×Out outputs for x of shape n×In.
func (r *ResidualMLP) Forward(tp *Tape, x *Tensor) *Tensor {
	h := r.First.Forward(tp, x)
	for _, b := range r.Blocks {
		t := tp.LinearAct(tp.Activate(h, r.Activation), b[0].W.Tensor, b[0].B.Tensor, r.Activation)
		t = b[1].Forward(tp, t)
		h = tp.Add(h, t)
	}
	return r.Last.Forward(tp, tp.Activate(h, r.Activation))
}

// Params returns the parameters in order.
func (r *ResidualMLP) Params() []*Param {
	ps := r.First.Params()
	for _, b := range r.Blocks {
		ps = append(ps, b[0].Params()...)
		ps = append(ps, b[1].Params()...)
	}
	return append(ps, r.Last.Params()...)
}

// LinearRows sets dst (n×out, row-major) to act(x·w + b) for the n×in rows of x, the in×out
// weights w and the out biases b, without a tape: the product of Linear and LinearAct for
// evaluations that need no gradient and keep their own buffers.
func LinearRows(dst, x []float64, n, in, out int, w, b []float64, act Activation) {
	if len(dst) < n*out || len(x) < n*in || len(w) < in*out || len(b) < out {
		panic(fmt.Sprintf("nn: LinearRows: %d×%d by %d×%d needs %d, %d, %d and %d values; have %d (x), %d (w), %d (b) and %d (dst)",
			n, in, in, out, n*in, in*out, out, n*out, len(x), len(w), len(b), len(dst)))
	}
	gemmBiasAct(n, out, in, x, max(in, 1), w, max(out, 1), b, dst, act.fn())
}
