package flow

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/sbi/internal/nntest"
	"github.com/gosbi/gosbi/sbi/nn"
)

// forwardMADE evaluates m on a gradient-free tape, in float32 or float64, and returns a copy
// of its outputs.
func forwardMADE(m *MADE, x, ctx *nn.Tensor, inFloat32 bool) []float64 {
	tp := nn.NewTape()
	tp.NoGrad = true
	return append([]float64(nil), m.forward(tp, x, ctx, EvalConfig{Float32: inFloat32}).Data...)
}

// magnitudeMADE returns |W|, |b| and |x| pushed through m's network without its hidden
// activation: a bound on the magnitude of every sum the evaluation forms (nn.ReLU and nn.Tanh
// never enlarge a value), hence of its rounding errors.
func magnitudeMADE(m *MADE, x, ctx *nn.Tensor) []float64 {
	abs := func(v []float64) []float64 {
		out := make([]float64, len(v))
		for i, a := range v {
			out[i] = math.Abs(a)
		}
		return out
	}
	am := &MADE{Features: m.Features, Context: m.Context, PerFeature: m.PerFeature, Activation: nn.Identity, Masks: m.Masks}
	for _, l := range m.Layers {
		am.Layers = append(am.Layers, &nn.Linear{In: l.In, Out: l.Out,
			W: &nn.Param{Tensor: nn.NewTensor(l.W.Rows, l.W.Cols, abs(l.W.Data))},
			B: &nn.Param{Tensor: nn.NewTensor(1, l.B.Cols, abs(l.B.Data))}})
	}
	var actx *nn.Tensor
	if ctx != nil {
		actx = nn.NewTensor(ctx.Rows, ctx.Cols, abs(ctx.Data))
	}
	return forwardMADE(am, nn.NewTensor(x.Rows, x.Cols, abs(x.Data)), actx, false)
}

// madeCases are MADEs of the shapes the flows use and of awkward ones: one feature, no
// context, hidden widths that are not whole panels, feature blocks wider than a panel.
var madeCases = []struct {
	D, C   int
	hidden []int
	P      int
}{
	{2, 2, []int{64, 64}, 23}, // the reference NSF's MADE
	{5, 9, []int{50, 50}, 23},
	{1, 3, []int{16}, 5},
	{3, 0, []int{40, 70}, 2},
	{2, 4, []int{33}, 40},
	{4, 1, []int{64, 64, 64}, 29},
}

// float32Activations are the hidden activations the float32 path evaluates.
var float32Activations = []nn.Activation{nn.ReLU, nn.Tanh}

// randomMADE returns a MADE whose biases have both signs, so that nn.ReLU cuts and nn.Tanh
// sees both halves.
func randomMADE(rng *rand.Rand, features, context int, hidden []int, perFeature int, act nn.Activation) *MADE {
	m := NewMADE(rng, features, context, hidden, perFeature, act)
	for _, l := range m.Layers {
		for i := range l.B.Data {
			l.B.Data[i] = rng.Float64() - 0.5
		}
	}
	return m
}

// roundingTerms is Σ(K+2) over a MADE's layers of K inputs each, and 2 more for each hidden
// layer's activation (Tanh32 is within 2⁻²³ of tanh relative to its value, and tanh is
// 1-Lipschitz): the number of float32 roundings that bound an output's error, in units of
// 2⁻²⁴ times its magnitude bound.
func roundingTerms(inputs int, hidden []int) int {
	terms := inputs + 2
	for _, h := range hidden {
		terms += h + 4
	}
	return terms
}

// TestMADEFloat32MatchesFloat64 compares the float32 evaluation of MADEs with the float64 one.
// Each output may differ by the rounding of float32 sums: with K terms per sum and L layers,
// at most roundingTerms·2⁻²⁴ times the magnitude bound of magnitudeMADE (doubled), for each
// activation of the float32 path. A wrong permutation, panel depth, layout or activation gives
// errors of the size of the outputs themselves.
func TestMADEFloat32MatchesFloat64(t *testing.T) {
	defer func(v bool) { float32Forward = v }(float32Forward)
	float32Forward = true // with the Go tile where there is no kernel
	rng := rand.New(rand.NewPCG(31, 32))
	for _, act := range float32Activations {
		for _, c := range madeCases {
			m := randomMADE(rng, c.D, c.C, c.hidden, c.P, act)
			const n = 13 // two whole tiles and a partial one
			x := nntest.Const(rng, n, c.D, -2, 2)
			var ctx *nn.Tensor
			if c.C > 0 {
				ctx = nntest.Const(rng, n, c.C, -2, 2)
			}
			want := forwardMADE(m, x, ctx, false)
			got := forwardMADE(m, x, ctx, true)
			bound := magnitudeMADE(m, x, ctx)
			terms := roundingTerms(c.D+c.C, c.hidden)
			worst := 0.0
			for i := range want {
				tol := 2 * float64(terms) * 0x1p-24 * bound[i]
				if d := math.Abs(got[i] - want[i]); !(d <= tol) {
					t.Fatalf("%v D=%d C=%d hidden=%v P=%d: output %d is %v in float32, %v in float64 (tolerance %.3g)",
						act, c.D, c.C, c.hidden, c.P, i, got[i], want[i], tol)
				}
				worst = max(worst, math.Abs(got[i]-want[i])/bound[i])
			}
			if worst == 0 {
				t.Errorf("%v D=%d C=%d: float32 and float64 outputs agree exactly: the float32 path did not run", act, c.D, c.C)
			}
		}
	}
}

// TestMADEFloat32RowsIndependent checks that a row's float32 outputs do not depend on its
// position in the batch (whole tiles, the partial last tile, a batch of one): the log-density
// of a pair is the same whichever call computes it.
func TestMADEFloat32RowsIndependent(t *testing.T) {
	defer func(v bool) { float32Forward = v }(float32Forward)
	float32Forward = true
	rng := rand.New(rand.NewPCG(33, 34))
	for _, act := range float32Activations {
		m := NewMADE(rng, 3, 2, []int{64, 64}, 23, act)
		const n = 37 // a batch of sixteen-value groups and a tail in Tanh32
		x, ctx := nntest.Const(rng, n, 3, -2, 2), nntest.Const(rng, n, 2, -2, 2)
		all := forwardMADE(m, x, ctx, true)
		w := 3 * 23
		for i := 0; i < n; i++ {
			one := forwardMADE(m, nn.NewTensor(1, 3, x.Data[3*i:3*i+3]), nn.NewTensor(1, 2, ctx.Data[2*i:2*i+2]), true)
			for j := range one {
				if math.Float64bits(one[j]) != math.Float64bits(all[i*w+j]) {
					t.Fatalf("%v: row %d, output %d: %v alone, %v in a batch of %d", act, i, j, one[j], all[i*w+j], n)
				}
			}
		}
	}
}

// TestMADEFloat32Autoregressive checks that the float32 path keeps the masks: changing input
// feature d leaves the outputs of features 0…d exactly unchanged and changes later ones.
func TestMADEFloat32Autoregressive(t *testing.T) {
	defer func(v bool) { float32Forward = v }(float32Forward)
	float32Forward = true
	rng := rand.New(rand.NewPCG(35, 36))
	for _, act := range float32Activations {
		for _, c := range madeCases {
			autoregressive32(t, NewMADE(rng, c.D, c.C, c.hidden, c.P, act), rng)
		}
	}
}

// autoregressive32 is TestMADEFloat32Autoregressive for one MADE.
func autoregressive32(t *testing.T, m *MADE, rng *rand.Rand) {
	t.Helper()
	D, C, P := m.Features, m.Context, m.PerFeature
	x := nntest.Const(rng, 1, D, -2, 2)
	var ctx *nn.Tensor
	if C > 0 {
		ctx = nntest.Const(rng, 1, C, -2, 2)
	}
	base := forwardMADE(m, x, ctx, true)
	for d := 0; d < D; d++ {
		moved := nn.NewTensor(1, D, append([]float64(nil), x.Data...))
		moved.Data[d] += 1.5
		out := forwardMADE(m, moved, ctx, true)
		changed := false
		for j := range out {
			same := out[j] == base[j]
			if j/P <= d && !same {
				t.Fatalf("%v D=%d C=%d: output %d (feature %d) moved with input %d", m.Activation, D, C, j, j/P, d)
			}
			changed = changed || !same
		}
		if d+1 < D && !changed {
			t.Errorf("%v D=%d C=%d: no output moved with input %d", m.Activation, D, C, d)
		}
	}
}

// TestMADEFloat32SeesUpdates checks that the float32 plan follows the weights: after an
// in-place change of one weight (as an optimizer step makes) the outputs are those of the new
// weights, not of a stale copy.
func TestMADEFloat32SeesUpdates(t *testing.T) {
	defer func(v bool) { float32Forward = v }(float32Forward)
	float32Forward = true
	rng := rand.New(rand.NewPCG(37, 38))
	for _, act := range float32Activations {
		m := NewMADE(rng, 2, 2, []int{64, 64}, 23, act)
		x, ctx := nntest.Const(rng, 7, 2, -2, 2), nntest.Const(rng, 7, 2, -2, 2)
		before := forwardMADE(m, x, ctx, true)
		for _, l := range m.Layers {
			l.B.Data[0] += 3
		}
		after := forwardMADE(m, x, ctx, true)
		want := forwardMADE(m, x, ctx, false)
		if math.Abs(after[0]-want[0]) > 1e-4*(1+math.Abs(want[0])) || after[0] == before[0] {
			t.Fatalf("%v: after an update: output 0 is %v in float32 (before %v), %v in float64", act, after[0], before[0], want[0])
		}
	}
}

// TestMADEFloat32OtherActivations checks that MADEs with a hidden activation other than nn.ReLU
// and nn.Tanh are evaluated in float64 even when float32 is asked for (the float32 path has no
// other activation).
func TestMADEFloat32OtherActivations(t *testing.T) {
	defer func(v bool) { float32Forward = v }(float32Forward)
	float32Forward = true
	rng := rand.New(rand.NewPCG(39, 40))
	for _, act := range []nn.Activation{nn.ELU, nn.SELU, nn.Sigmoid, nn.Softplus, nn.LeakyReLU} {
		m := NewMADE(rng, 2, 2, []int{16}, 2, act)
		x, ctx := nntest.Const(rng, 5, 2, -2, 2), nntest.Const(rng, 5, 2, -2, 2)
		got, want := forwardMADE(m, x, ctx, true), forwardMADE(m, x, ctx, false)
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("%v MADE, output %d: %v with Float32 set, %v without", act, i, got[i], want[i])
			}
		}
	}
}

// TestMADEFeatureFloat32 compares the float32 evaluation of each feature's outputs (as
// sampling uses it: MADEFeature.Eval on a Float32 tape, with the context as rows or bound by
// WithContext) with the float64 one, to the tolerance of TestMADEFloat32MatchesFloat64.
func TestMADEFeatureFloat32(t *testing.T) {
	defer func(v bool) { float32Forward = v }(float32Forward)
	float32Forward = true
	rng := rand.New(rand.NewPCG(43, 44))
	for _, act := range float32Activations {
		for _, c := range madeCases {
			featureFloat32(t, randomMADE(rng, c.D, c.C, c.hidden, c.P, act), rng, c.hidden)
		}
	}
}

// featureFloat32 is TestMADEFeatureFloat32 for one MADE.
func featureFloat32(t *testing.T, m *MADE, rng *rand.Rand, hidden []int) {
	t.Helper()
	D, C, P := m.Features, m.Context, m.PerFeature
	const n = 13
	x := nntest.Const(rng, n, D, -2, 2)
	var ctx *nn.Tensor
	var ctxRows []float64
	if C > 0 {
		one := nntest.Const(rng, 1, C, -2, 2).Data
		ctx = nn.NewTensor(n, C, nil)
		for i := 0; i < n; i++ {
			copy(ctx.Data[i*C:], one)
		}
		ctxRows = ctx.Data
	}
	bound := magnitudeMADE(m, x, ctx)
	terms := roundingTerms(D+C, hidden)
	for d := 0; d < D; d++ {
		for _, bind := range []bool{false, true} {
			if bind && C == 0 {
				continue
			}
			f, rows := m.Feature(d), ctxRows
			if bind {
				f, rows = f.WithContext(ctxRows[:C]), nil
			}
			eval := func(inFloat32 bool) []float64 {
				tp := nn.NewTape()
				tp.NoGrad = true
				dst := make([]float64, n*P)
				f.eval(tp, dst, x.Data, rows, n, EvalConfig{Float32: inFloat32})
				return dst
			}
			want, got := eval(false), eval(true)
			differ := false
			for i := 0; i < n; i++ {
				for q := 0; q < P; q++ {
					w, g := want[i*P+q], got[i*P+q]
					tol := 2 * float64(terms) * 0x1p-24 * bound[i*D*P+d*P+q]
					if !(math.Abs(g-w) <= tol) {
						t.Fatalf("D=%d C=%d hidden=%v P=%d feature %d (bound %v): row %d output %d is %v in float32, %v in float64 (tolerance %.3g)",
							D, C, hidden, P, d, bind, i, q, g, w, tol)
					}
					differ = differ || g != w
				}
			}
			if !differ && (d > 0 || C > 0) {
				t.Errorf("D=%d C=%d feature %d: float32 and float64 agree exactly: the float32 path did not run", D, C, d)
			}
		}
	}
}

// TestFlowFloat32LargeValues compares the float32 evaluation of flows (log-densities, and
// inversions with the context as rows and bound) with the float64 one on rows whose θ, z or
// context is large: up to and beyond float32's range (about 3.4e38), where float64 still gives
// finite results. Inputs within that range can still overflow a float32 sum of products (a
// tanh unit saturating at +1 where float64 gives −1), and inputs beyond it become ±Inf, then
// NaN. Each result must be NaN exactly when float64's is, equal to it when infinite, and
// within 1e-4·(1 + |value|) otherwise: float32 rounding of the MADE outputs moves these small
// flows' results by about 1e-6 relative, an overflow by the size of the value (or to NaN).
func TestFlowFloat32LargeValues(t *testing.T) {
	defer func(v bool) { float32Forward = v }(float32Forward)
	float32Forward = true
	mags := []float64{1, 1e3, 1e10, 1e20, 1e30, 3e38, 1e39, 1e100}
	const per = 3 // rows per magnitude and kind of large input
	for _, kind := range []Kind{MAF, NSF} {
		for _, act := range float32Activations {
			rng := rand.New(rand.NewPCG(47, 48))
			f, err := New(rng, Config{Kind: kind, Features: 3, Context: 2, Transforms: 2, Hidden: []int{20, 20}, Activation: act})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range f.Params() {
				for i := range p.Data {
					p.Data[i] += 0.3 * rng.NormFloat64()
				}
			}
			n := 2 * per * len(mags)
			tp := nn.NewTape()
			tp.NoGrad = true
			theta, ctx := tp.New(n, 3), tp.New(n, 2)
			for i := 0; i < n; i++ {
				mag := mags[i/(2*per)]
				thetaScale, ctxScale := mag, 1.0
				if i%2 == 1 {
					thetaScale, ctxScale = 1, mag
				}
				for j := 0; j < 3; j++ {
					theta.Data[3*i+j] = thetaScale * (2*rng.Float64() - 1)
				}
				for j := 0; j < 2; j++ {
					ctx.Data[2*i+j] = ctxScale * (2*rng.Float64() - 1)
				}
			}
			name := string(kind) + " " + act.String()
			eval := func(ev EvalConfig) []float64 {
				return append([]float64(nil), f.Eval(ev).LogProb(tp, theta, ctx).Data...)
			}
			closeTo(t, name+" LogProb", eval(EvalConfig{}), eval(EvalConfig{Float32: true}))
			inv := func(ev EvalConfig) []float64 {
				x, _ := f.Eval(ev).Inverter(nil).Inverse(tp, theta, ctx)
				return append([]float64(nil), x.Data...)
			}
			closeTo(t, name+" Inverse", inv(EvalConfig{}), inv(EvalConfig{Float32: true}))
			for _, i := range []int{2*per*6 + 1, 2*per*7 + 1} { // a bound context of 1e39, 1e100
				c := ctx.Data[2*i : 2*i+2]
				z := nn.NewTensor(1, 3, theta.Data[3*(i-1):3*i])
				bound := func(ev EvalConfig) []float64 {
					return append([]float64(nil), f.Eval(ev).Inverter(c).Map(tp, z, nil).Data...)
				}
				closeTo(t, name+" bound Map", bound(EvalConfig{}), bound(EvalConfig{Float32: true}))
			}
		}
	}
}

// closeTo checks got against want as TestFlowFloat32LargeValues says.
func closeTo(t *testing.T, what string, want, got []float64) {
	t.Helper()
	for i, w := range want {
		g := got[i]
		switch {
		case math.IsNaN(w) || math.IsNaN(g):
			if math.IsNaN(w) != math.IsNaN(g) {
				t.Errorf("%s: value %d is %v in float32, %v in float64", what, i, g, w)
			}
		case math.IsInf(w, 0):
			if g != w {
				t.Errorf("%s: value %d is %v in float32, %v in float64", what, i, g, w)
			}
		case !(math.Abs(g-w) <= 1e-4*(1+math.Abs(w))):
			t.Errorf("%s: value %d is %v in float32, %v in float64", what, i, g, w)
		}
	}
}
