package flow

import (
	"fmt"

	"github.com/gosbi/gosbi/sbi/nn"
)

// MADEFeature evaluates the output block of one feature of a MADE, without gradients, using
// only the units that can reach it. Output d (degree d+1) reads hidden units of degree ≤ d,
// which in turn read only units and inputs of degree ≤ d: the first d features and the
// context. Inverting an autoregressive transform (sampling a masked autoregressive flow)
// needs the outputs of one feature per pass, so evaluating the sub-network of degree ≤ d
// instead of the whole MADE does less work, and gives the same numbers: the dropped terms
// are products with masked-out (zero) weights.
//
// A MADEFeature copies the weights it uses when it is made; it does not see later updates
// of the MADE's parameters.
type MADEFeature struct {
	feature, features, context int
	act                        nn.Activation
	layers                     []compactLayer

	p32   *made32   // the MADE's float32 plan, for evaluations in float32 (nil without one)
	bound []float64 // the context fixed by WithContext, which the float32 plan reads as inputs
}

// compactLayer is a masked nn.Linear layer restricted to the kept inputs and outputs: w is
// in×out row-major with the mask applied.
type compactLayer struct {
	in, out int
	w, b    []float64
}

// Feature returns the evaluator of feature d's outputs (d in 0…Features−1).
func (m *MADE) Feature(d int) *MADEFeature {
	if d < 0 || d >= m.Features {
		panic(fmt.Sprintf("flow: MADE.Feature(%d) of a MADE with %d features", d, m.Features))
	}
	f := &MADEFeature{feature: d, features: m.Features, context: m.Context, act: m.Activation}
	if float32Forward {
		f.p32 = m.plan32()
	}
	// inputs kept by the first layer: features 0…d−1 (degrees 1…d), then the whole context
	in := make([]int, 0, d+m.Context)
	for j := 0; j < d; j++ {
		in = append(in, j)
	}
	for j := 0; j < m.Context; j++ {
		in = append(in, m.Features+j)
	}
	for l, lin := range m.Layers {
		var out []int
		if l+1 < len(m.Layers) {
			degrees := hiddenDegrees(lin.W.Cols, m.Features, m.Context > 0)
			for j, deg := range degrees {
				if deg <= d {
					out = append(out, j)
				}
			}
		} else {
			for p := 0; p < m.PerFeature; p++ {
				out = append(out, d*m.PerFeature+p)
			}
		}
		f.layers = append(f.layers, compact(lin, m.Masks[l], in, out))
		in = out
	}
	return f
}

// compact copies the masked weights of lin between the kept inputs and outputs.
func compact(lin *nn.Linear, mask []float64, in, out []int) compactLayer {
	cols := lin.W.Cols
	c := compactLayer{in: len(in), out: len(out), w: make([]float64, len(in)*len(out)), b: make([]float64, len(out))}
	for r, i := range in {
		for k, j := range out {
			c.w[r*len(out)+k] = lin.W.Data[i*cols+j] * mask[i*cols+j]
		}
	}
	for k, j := range out {
		c.b[k] = lin.B.Data[j]
	}
	return c
}

// PerFeature returns the number of outputs of the feature.
func (f *MADEFeature) PerFeature() int { return f.layers[len(f.layers)-1].out }

// WithContext returns an evaluator for one fixed context vector: the context's part of the
// first layer, Σ_j c_j·W_j + b, is computed once and folded into the bias, so evaluations
// read only the first d features.
func (f *MADEFeature) WithContext(context []float64) *MADEFeature {
	if len(context) != f.context {
		panic(fmt.Sprintf("flow: MADEFeature.WithContext: %d values, want %d", len(context), f.context))
	}
	g := *f
	g.context = 0
	g.layers = append([]compactLayer(nil), f.layers...)
	first := f.layers[0]
	d := f.feature
	b := append([]float64(nil), first.b...)
	for j, c := range context {
		row := first.w[(d+j)*first.out : (d+j+1)*first.out]
		for k, w := range row {
			b[k] += c * w
		}
	}
	g.layers[0] = compactLayer{in: d, out: first.out, w: first.w[:d*first.out], b: b}
	g.bound = append([]float64(nil), context...)
	return &g
}

// Constant reports whether the outputs depend on nothing but a bound context: the first
// feature after WithContext (or of a MADE without context).
func (f *MADEFeature) Constant() bool { return f.feature == 0 && f.context == 0 }

// Eval writes the n×PerFeature outputs to dst for inputs x (n rows of Features values, only
// the first d read) and context (n rows of Context values; nil after WithContext), in
// float64. It borrows scratch space from tp.
func (f *MADEFeature) Eval(tp *nn.Tape, dst []float64, x []float64, context []float64, n int) {
	f.eval(tp, dst, x, context, n, EvalConfig{})
}

// eval is Eval multiplying in float32 when ev asks for it, tp records nothing and the MADE
// has a float32 plan (see made32.go).
func (f *MADEFeature) eval(tp *nn.Tape, dst []float64, x []float64, context []float64, n int, ev EvalConfig) {
	d := f.feature
	if ev.Float32 && tp.NoGrad && f.p32 != nil {
		f.p32.evalFeature(d, dst, x, context, f.bound, n)
		f.redo64(tp, dst, x, context, n)
		return
	}
	f.eval64(tp, dst, x, context, n)
}

// redo64 evaluates again in float64 the rows whose inputs lie beyond the reach of the
// float32 plan (made32.within): those whose float32 sums could overflow.
func (f *MADEFeature) redo64(tp *nn.Tape, dst []float64, x []float64, context []float64, n int) {
	if !f.p32.within(f.bound) {
		f.eval64(tp, dst, x, context, n)
		return
	}
	P, d := f.PerFeature(), f.feature
	for i := 0; i < n; i++ {
		xi := x[i*f.features : (i+1)*f.features]
		var ci []float64
		if f.context > 0 {
			ci = context[i*f.context : (i+1)*f.context]
		}
		if !f.p32.within(xi[:d]) || !f.p32.within(ci) {
			f.eval64(tp, dst[i*P:(i+1)*P], xi, ci, 1)
		}
	}
}

// eval64 is eval in float64.
func (f *MADEFeature) eval64(tp *nn.Tape, dst []float64, x []float64, context []float64, n int) {
	d := f.feature
	first := f.layers[0]
	// the buffers of the hidden layers are the tape's and are given back on return, so that
	// repeated calls (one per feature and transform when sampling) reuse memory still in cache
	defer tp.ReleaseScratch(tp.ScratchMark())
	in := tp.Scratch(n * first.in)
	for i := 0; i < n; i++ {
		row := in[i*first.in : (i+1)*first.in]
		copy(row, x[i*f.features:i*f.features+d])
		if f.context > 0 {
			copy(row[d:], context[i*f.context:(i+1)*f.context])
		}
	}
	for l, c := range f.layers {
		var out []float64
		if l+1 == len(f.layers) {
			out = dst[:n*c.out]
		} else {
			out = tp.Scratch(n * c.out)
		}
		act := nn.Identity
		if l+1 < len(f.layers) {
			act = f.act
		}
		nn.LinearRows(out, in, n, c.in, c.out, c.w, c.b, act)
		in = out
	}
}
