package flow

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"

	"github.com/gosbi/gosbi/sbi/nn"
)

// MADE is a masked autoencoder for distribution estimation (Germain et al. 2015) with an
// optional context: an nn.MLP of masked nn.Linear layers whose output block for feature d depends
// only on features 0…d−1 of the input (and on the whole context). It is the conditioner of
// masked autoregressive flows (Papamakarios et al. 2017): output columns d·P … d·P+P−1 hold the
// P transform parameters of feature d.
//
// Degrees are assigned deterministically: input feature d has degree d+1 and context inputs
// degree 0; a hidden unit sees inputs of degree ≤ its own and an output of feature d
// (degree d+1) sees hidden units of degree < d+1. Without context, hidden unit k has degree
// k mod max(1, D−1) + min(1, D−1), the assignment of nflows' MADE used by sbi's MAF and NSF.
// With context, hidden unit k has degree k mod D, so that some units (degree 0) see the
// context alone: in nflows' assignment no hidden unit has degree 0 when D > 1, which leaves
// the first feature's transform independent of the context.
type MADE struct {
	Features, Context, PerFeature int
	Activation                    nn.Activation
	Layers                        []*nn.Linear
	Masks                         [][]float64 // Masks[l] has Layers[l].W's shape

	f32 atomic.Pointer[made32] // the float32 plan of the last float32 evaluation (made32.go)
}

// NewMADE returns a MADE for features inputs, context conditioning inputs (0 for none), the
// given hidden widths (at least one layer) and perFeature outputs per feature, initialized
// from rng like PyTorch's nn.Linear.
func NewMADE(rng *rand.Rand, features, context int, hidden []int, perFeature int, act nn.Activation) *MADE {
	if features < 1 || context < 0 || perFeature < 1 || len(hidden) == 0 {
		panic(fmt.Sprintf("flow: NewMADE(features=%d, context=%d, hidden=%v, perFeature=%d): want features ≥ 1, context ≥ 0, at least one hidden layer, perFeature ≥ 1",
			features, context, hidden, perFeature))
	}
	m := &MADE{Features: features, Context: context, PerFeature: perFeature, Activation: act}
	in := make([]int, features+context) // degrees of the first layer's inputs
	for d := 0; d < features; d++ {
		in[d] = d + 1
	}
	for l, h := range hidden {
		out := hiddenDegrees(h, features, context > 0)
		lin := nn.NewLinear(rng, fmt.Sprintf("made.%d", l), len(in), h)
		m.Layers = append(m.Layers, lin)
		m.Masks = append(m.Masks, degreeMask(in, out, false))
		in = out
	}
	out := make([]int, features*perFeature)
	for d := 0; d < features; d++ {
		for p := 0; p < perFeature; p++ {
			out[d*perFeature+p] = d + 1
		}
	}
	lin := nn.NewLinear(rng, fmt.Sprintf("made.%d", len(hidden)), len(in), len(out))
	m.Layers = append(m.Layers, lin)
	m.Masks = append(m.Masks, degreeMask(in, out, true))
	return m
}

func hiddenDegrees(n, features int, context bool) []int {
	hi, lo := max(1, features-1), min(1, features-1)
	if context {
		hi, lo = features, 0
	}
	d := make([]int, n)
	for k := range d {
		d[k] = k%hi + lo
	}
	return d
}

// degreeMask returns the in×out mask with 1 where input degree ≤ output degree (hidden
// layers) or < (output layer, strict).
func degreeMask(in, out []int, strict bool) []float64 {
	m := make([]float64, len(in)*len(out))
	for i, di := range in {
		for j, dj := range out {
			if di < dj || (!strict && di == dj) {
				m[i*len(out)+j] = 1
			}
		}
	}
	return m
}

// Forward returns the n×(Features·PerFeature) outputs for inputs x (n×Features) and context
// (n×Context; nil when Context is 0).
func (m *MADE) Forward(tp *nn.Tape, x, context *nn.Tensor) *nn.Tensor {
	return m.forward(tp, x, context, EvalConfig{})
}

// forward is Forward with the products in float32 when ev asks for it, the tape records
// nothing and the MADE has a float32 plan (made32.go).
func (m *MADE) forward(tp *nn.Tape, x, context *nn.Tensor, ev EvalConfig) *nn.Tensor {
	if x.Cols != m.Features {
		panic(fmt.Sprintf("flow: MADE: input has %d columns, want %d", x.Cols, m.Features))
	}
	if m.Context > 0 && (context == nil || context.Cols != m.Context || context.Rows != x.Rows) {
		panic(fmt.Sprintf("flow: MADE: context %v, want %d×%d", context, x.Rows, m.Context))
	}
	if ev.Float32 && tp.NoGrad && float32Forward {
		if out := m.forward32(tp, x, context); out != nil {
			return out
		}
	}
	return m.forward64(tp, x, context)
}

// forward64 is forward in float64.
func (m *MADE) forward64(tp *nn.Tape, x, context *nn.Tensor) *nn.Tensor {
	h := x
	if m.Context > 0 {
		h = tp.Concat(x, context)
	}
	for l, lin := range m.Layers {
		act := m.Activation
		if l+1 == len(m.Layers) {
			act = nn.Identity
		}
		h = tp.MaskedLinearAct(h, lin.W.Tensor, lin.B.Tensor, m.Masks[l], act)
	}
	return h
}

// Params returns the parameters of all layers.
func (m *MADE) Params() []*nn.Param {
	var ps []*nn.Param
	for _, l := range m.Layers {
		ps = append(ps, l.Params()...)
	}
	return ps
}
