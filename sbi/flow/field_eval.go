package flow

import (
	"fmt"
	"math"

	"github.com/gosbi/gosbi/sbi/nn"
)

// fieldEvaluator evaluates a field, and optionally its divergence, on n rows without a tape,
// with buffers of its own: the right-hand side of the ODEs of MapRows and LogProbRows.
//
// The divergence ∇·v = Σ_k ∂v_k/∂θ_k is exact: forward-mode differentiation along the d unit
// directions e_k of θ. For an MLP with hidden outputs a_l = act(a_{l−1}·W_l + b_l), the
// tangent of a_l along e_k is T_l = (T_{l−1}·W_l) ⊙ act′, with T_0 = e_k (so T_1's row k is
// row k of W_1 times act′), and ∂v/∂θ_k = T_L·W_out. The d tangents of the n rows form one
// (n·d)×H matrix, so each hidden layer costs one matrix product; the divergence takes only
// the diagonal of the last, Σ_k ⟨T_L[·,k], W_out[·,k]⟩. (The reference is the scalar
// definition, checked against finite differences of the velocity in the tests.)
type fieldEvaluator struct {
	f          *Field
	n          int
	in         []float64   // n×inputs: θ_t, time embedding, context
	acts       [][]float64 // the hidden layers' outputs, n×H_l each
	out        []float64   // n×Features
	tanA, tanB []float64   // tangents, (n·Features)×H
	deriv      []float64   // act′ of one hidden layer, n×H
	zeros      []float64   // a zero bias for the tangents' products
}

// newEvaluator returns an evaluator of n rows conditioned on context (n rows or one row of
// Context values); divergence says whether eval will be asked for divergences.
func (f *Field) newEvaluator(n int, context []float64, divergence bool) *fieldEvaluator {
	cfg := f.cfg
	W := cfg.inputs()
	e := &fieldEvaluator{f: f, n: n, in: make([]float64, n*W), out: make([]float64, n*cfg.Features)}
	maxH := 0
	for _, h := range cfg.Hidden {
		e.acts = append(e.acts, make([]float64, n*h))
		maxH = max(maxH, h)
	}
	if divergence {
		e.tanA = make([]float64, n*cfg.Features*maxH)
		e.tanB = make([]float64, n*cfg.Features*maxH)
		e.zeros = make([]float64, maxH)
		e.deriv = make([]float64, n*maxH)
	}
	if c := cfg.Context; c > 0 {
		off := cfg.Features + 2*cfg.Frequencies
		for i := 0; i < n; i++ {
			src := context
			if len(context) != c {
				src = context[i*c : (i+1)*c]
			}
			copy(e.in[i*W+off:(i+1)*W], src)
		}
	}
	return e
}

// eval writes v(θ_i, t_i, c_i) into row i of dst (Features values at dst[i·dStride]) for the
// rows θ_i = y[i·yStride : i·yStride+Features]; with div non-nil it also writes ∇·v of row i
// into div[i·divStride].
func (e *fieldEvaluator) eval(t, y []float64, yStride int, dst []float64, dStride int, div []float64, divStride int) {
	f, n := e.f, e.n
	d, W := f.cfg.Features, f.cfg.inputs()
	if len(t) != n {
		panic(fmt.Sprintf("flow: field evaluation of %d times for %d rows", len(t), n))
	}
	for i := 0; i < n; i++ {
		row := e.in[i*W : (i+1)*W]
		copy(row[:d], y[i*yStride:i*yStride+d])
		f.embedTime(row[d:], t[i])
	}
	layers := f.net.Layers
	x := e.in
	for l, lay := range layers[:len(layers)-1] {
		nn.LinearRows(e.acts[l], x, n, lay.In, lay.Out, lay.W.Data, lay.B.Data, f.cfg.Activation)
		x = e.acts[l]
	}
	last := layers[len(layers)-1]
	nn.LinearRows(e.out, x, n, last.In, last.Out, last.W.Data, last.B.Data, nn.Identity)
	for i := 0; i < n; i++ {
		copy(dst[i*dStride:i*dStride+d], e.out[i*d:(i+1)*d])
	}
	if div != nil {
		e.divergence(div, divStride)
	}
}

// divergence writes ∇·v of row i into div[i·stride], from the hidden outputs of the last eval.
func (e *fieldEvaluator) divergence(div []float64, stride int) {
	f, n, d := e.f, e.n, e.f.cfg.Features
	layers := f.net.Layers
	H := layers[0].Out
	T := e.tanA[:n*d*H]
	g := e.derivative(0)
	w0 := layers[0].W.Data // inputs×H: its first d rows are the weights of θ
	for i := 0; i < n; i++ {
		gi := g[i*H : (i+1)*H]
		for k := 0; k < d; k++ {
			row := T[(i*d+k)*H : (i*d+k+1)*H]
			for j, w := range w0[k*H : (k+1)*H] {
				row[j] = w * gi[j]
			}
		}
	}
	spare := e.tanB
	for l := 1; l < len(layers)-1; l++ {
		lay := layers[l]
		H := lay.Out
		U := spare[:n*d*H]
		nn.LinearRows(U, T, n*d, lay.In, H, lay.W.Data, e.zeros[:H], nn.Identity)
		g := e.derivative(l)
		for i := 0; i < n; i++ {
			gi := g[i*H : (i+1)*H]
			for k := 0; k < d; k++ {
				row := U[(i*d+k)*H : (i*d+k+1)*H]
				for j := range row {
					row[j] *= gi[j]
				}
			}
		}
		spare = T[:cap(T)]
		T = U
	}
	last := layers[len(layers)-1]
	wl, H := last.W.Data, last.In // H×d
	for i := 0; i < n; i++ {
		var sum float64
		for k := 0; k < d; k++ {
			row := T[(i*d+k)*H : (i*d+k+1)*H]
			for j, v := range row {
				sum += v * wl[j*d+k]
			}
		}
		div[i*stride] = sum
	}
}

// derivative returns act′ at the inputs of hidden layer l's outputs (n×H_l), from the outputs
// of the last eval, in e.deriv.
func (e *fieldEvaluator) derivative(l int) []float64 {
	a := e.acts[l]
	g := e.deriv[:len(a)]
	derivativeFromOutput(e.f.cfg.Activation, g, a)
	return g
}

// SELU's constants, as package nn defines the activation.
const (
	seluAlpha = 1.6732632423543772848170429916717
	seluScale = 1.0507009873554804934193349852946
)

// derivativeFromOutput sets g[j] to act′ at the input whose output is a[j]: each of nn's
// activations has a derivative that is a function of its output.
func derivativeFromOutput(act nn.Activation, g, a []float64) {
	switch act {
	case nn.Identity:
		for j := range g {
			g[j] = 1
		}
	case nn.ReLU:
		for j, v := range a {
			g[j] = 0
			if v > 0 {
				g[j] = 1
			}
		}
	case nn.LeakyReLU:
		for j, v := range a {
			g[j] = 0.01
			if v > 0 {
				g[j] = 1
			}
		}
	case nn.ELU: // a = eˣ − 1 below 0: a′ = a + 1
		for j, v := range a {
			g[j] = min(v, 0) + 1
		}
	case nn.SELU:
		for j, v := range a {
			g[j] = seluScale
			if !(v > 0) {
				g[j] = v + seluScale*seluAlpha
			}
		}
	case nn.Tanh:
		for j, v := range a {
			g[j] = 1 - v*v
		}
	case nn.Sigmoid:
		for j, v := range a {
			g[j] = v * (1 - v)
		}
	case nn.Softplus: // a = log(1 + eˣ) ⇒ σ(x) = 1 − e^{−a}
		for j, v := range a {
			g[j] = -math.Expm1(-v)
		}
	default:
		panic(fmt.Sprintf("flow: no derivative for activation %v", act))
	}
}
