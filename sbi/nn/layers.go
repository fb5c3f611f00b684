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
