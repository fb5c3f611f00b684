package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// gradTol is the bound on the relative gradient error, in float64, between the analytic
// gradient and central finite differences with step gradStep:
//
//	max_i |analytic_i − numeric_i| / max(1, max_i |numeric_i|) ≤ gradTol.
//
// Central differences have truncation error O(h²·f”') ≈ 1e-10 and rounding error
// O(ε·|f|/h) ≈ 1e-10 at h = 1e-5, so 1e-6 leaves a wide margin while still catching any
// wrong term (those give errors of order 1e-2 or more).
const (
	gradStep = 1e-5
	gradTol  = 1e-6
)

// checkGrad fails t when the gradient of f on the inputs is off by more than gradTol (see
// GradientError).
func checkGrad(t *testing.T, name string, inputs []*Tensor, f func(tp *Tape, in []*Tensor) *Tensor) {
	t.Helper()
	errs, err := GradientError(inputs, f, gradStep, 7)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for k, e := range errs {
		if !(e <= gradTol) {
			t.Errorf("%s: input %d: relative gradient error %.3g > %.g", name, k, e, gradTol)
		}
	}
}

func randVar(rng *rand.Rand, rows, cols int, lo, hi float64) *Tensor {
	t := NewVariable(rows, cols, nil)
	for i := range t.Data {
		t.Data[i] = lo + (hi-lo)*rng.Float64()
	}
	return t
}

func randConst(rng *rand.Rand, rows, cols int, lo, hi float64) *Tensor {
	t := randVar(rng, rows, cols, lo, hi)
	t.Grad = nil
	return t
}

func TestGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	r := func(rows, cols int) *Tensor { return randVar(rng, rows, cols, -2, 2) }
	pos := func(rows, cols int) *Tensor { return randVar(rng, rows, cols, 0.5, 2) }
	// values kept away from the kinks of ReLU/Abs/Indicator so finite differences are valid
	away := func(rows, cols int) *Tensor {
		v := r(rows, cols)
		for i, x := range v.Data {
			if math.Abs(x) < 0.1 {
				v.Data[i] = 0.3
			}
		}
		return v
	}
	mask := make([]float64, 4*3)
	for i := range mask {
		mask[i] = float64((i * 7 / 3) % 2)
	}
	cases := []struct {
		name   string
		inputs []*Tensor
		f      func(tp *Tape, in []*Tensor) *Tensor
	}{
		{"MatMul", []*Tensor{r(3, 4), r(4, 5)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.MatMul(in[0], in[1]) }},
		{"Linear", []*Tensor{r(5, 4), r(4, 3), r(1, 3)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.Linear(in[0], in[1], in[2]) }},
		{"LinearNoBias", []*Tensor{r(5, 4), r(4, 3)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.Linear(in[0], in[1], nil) }},
		{"MaskedLinear", []*Tensor{r(5, 4), r(4, 3), r(1, 3)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.MaskedLinear(in[0], in[1], in[2], mask) }},
		{"Add", []*Tensor{r(3, 4), r(3, 4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.Add(in[0], in[1]) }},
		{"AddRowBroadcast", []*Tensor{r(3, 4), r(1, 4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.Add(in[0], in[1]) }},
		{"SubColBroadcast", []*Tensor{r(3, 4), r(3, 1)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.Sub(in[0], in[1]) }},
		{"SubScalarLeft", []*Tensor{r(1, 1), r(3, 4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.Sub(in[0], in[1]) }},
		{"Mul", []*Tensor{r(3, 4), r(3, 4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.Mul(in[0], in[1]) }},
		{"MulBroadcastBoth", []*Tensor{r(3, 1), r(1, 4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.Mul(in[0], in[1]) }},
		{"Div", []*Tensor{r(3, 4), pos(3, 4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.Div(in[0], in[1]) }},
		{"Scale", []*Tensor{r(3, 4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.Scale(in[0], -2.5) }},
		{"AddScalar", []*Tensor{r(3, 4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.AddScalar(in[0], 3) }},
		{"Neg", []*Tensor{r(3, 4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.Neg(in[0]) }},
		{"Sum", []*Tensor{r(3, 4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.Sum(in[0]) }},
		{"Mean", []*Tensor{r(3, 4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.Mean(in[0]) }},
		{"RowSum", []*Tensor{r(3, 4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.RowSum(in[0]) }},
		{"ColSum", []*Tensor{r(3, 4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.ColSum(in[0]) }},
		{"Concat", []*Tensor{r(3, 2), r(3, 3)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.Concat(in[0], in[1]) }},
		{"Columns", []*Tensor{r(3, 5)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.Columns(in[0], 1, 4) }},
		{"Dropout", []*Tensor{r(6, 5)}, func(tp *Tape, in []*Tensor) *Tensor {
			return tp.Dropout(in[0], 0.4, rand.New(rand.NewPCG(3, 3))) // the same mask on every call
		}},
		{"PermuteColumns", []*Tensor{r(3, 4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.PermuteColumns(in[0], []int{2, 0, 3, 1}) }},
		{"RepeatRows", []*Tensor{r(2, 3)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.RepeatRows(in[0], 3) }},
		{"Reshape", []*Tensor{r(2, 6)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.Square(tp.Reshape(in[0], 3, 4)) }},
		{"Exp", []*Tensor{r(3, 4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.Exp(in[0]) }},
		{"Log", []*Tensor{pos(3, 4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.Log(in[0]) }},
		{"Square", []*Tensor{r(3, 4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.Square(in[0]) }},
		{"Sqrt", []*Tensor{pos(3, 4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.Sqrt(in[0]) }},
		{"Abs", []*Tensor{away(3, 4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.Abs(in[0]) }},
		{"LogSigmoid", []*Tensor{r(3, 4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.LogSigmoid(in[0]) }},
		{"Tanh", []*Tensor{r(3, 4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.Tanh(in[0]) }},
		{"Sigmoid", []*Tensor{r(3, 4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.Sigmoid(in[0]) }},
		{"Softplus", []*Tensor{r(3, 4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.Softplus(in[0]) }},
		{"ReLU", []*Tensor{away(3, 4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.ReLU(in[0]) }},
		{"LogSumExp", []*Tensor{r(3, 4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.LogSumExp(in[0]) }},
		{"LogSoftmax", []*Tensor{r(3, 4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.LogSoftmax(in[0]) }},
		{"BCEWithLogits", []*Tensor{r(6, 1), randConst(rng, 6, 1, 0, 1)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.BCEWithLogits(in[0], in[1]) }},
		{"SortRows", []*Tensor{r(3, 6)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.SortRows(in[0]) }},
		// the straight-through indicator's gradient is by definition not the derivative of
		// its forward value; check instead that 1[x>0]·x + STE passes the gradient through:
		// d/dx of Indicator(x)⊙c is c where the STE applies.
		{"Chain", []*Tensor{r(4, 3), r(3, 3), r(1, 3)}, func(tp *Tape, in []*Tensor) *Tensor {
			h := tp.Tanh(tp.Linear(in[0], in[1], in[2]))
			return tp.LogSumExp(tp.Mul(h, tp.Sigmoid(h)))
		}},
	}
	for _, act := range []Activation{Identity, ReLU, ELU, SELU, Tanh, Sigmoid, Softplus, LeakyReLU} {
		act := act
		type tc = struct {
			name   string
			inputs []*Tensor
			f      func(tp *Tape, in []*Tensor) *Tensor
		}
		cases = append(cases,
			tc{"Activate/" + act.String(), []*Tensor{away(3, 4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.Activate(in[0], act) }},
			tc{"LinearAct/" + act.String(), []*Tensor{r(5, 4), r(4, 3), r(1, 3)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.LinearAct(in[0], in[1], in[2], act) }},
			tc{"MaskedLinearAct/" + act.String(), []*Tensor{r(5, 4), r(4, 3), r(1, 3)}, func(tp *Tape, in []*Tensor) *Tensor {
				return tp.MaskedLinearAct(in[0], in[1], in[2], mask, act)
			}},
		)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkGrad(t, c.name, c.inputs, c.f) })
	}
}

func TestIndicatorStraightThrough(t *testing.T) {
	tp := NewTape()
	x := tp.Variable(1, 4, []float64{-2, -0.5, 0.5, 2})
	for _, c := range []struct {
		window float64
		want   []float64
	}{{0, []float64{1, 1, 1, 1}}, {1, []float64{0, 1, 1, 0}}} {
		clear(x.Grad)
		y := tp.Indicator(x, c.window)
		if fmt.Sprint(y.Data) != "[0 0 1 1]" {
			t.Fatalf("Indicator forward = %v, want [0 0 1 1]", y.Data)
		}
		tp.BackwardWith(y, []float64{1, 1, 1, 1})
		if fmt.Sprint(x.Grad) != fmt.Sprint(c.want) {
			t.Errorf("window %v: gradient %v, want %v", c.window, x.Grad, c.want)
		}
		tp.nodes = tp.nodes[:0]
	}
}

func TestMLPGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, act := range []Activation{Tanh, ELU, Softplus} {
		m := NewMLP(rng, []int{3, 5, 4, 2}, act)
		x := randConst(rng, 6, 3, -1, 1)
		// check parameter gradients: treat each parameter as a variable input
		var inputs []*Tensor
		for _, p := range m.Params() {
			inputs = append(inputs, p.Tensor)
		}
		inputs = append(inputs, x)
		checkGrad(t, "MLP/"+act.String(), inputs, func(tp *Tape, in []*Tensor) *Tensor {
			for k, l := range m.Layers {
				l.W.Tensor, l.B.Tensor = in[2*k], in[2*k+1]
			}
			return m.Forward(tp, in[len(in)-1])
		})
	}
}

// TestDensityIndicatorStraightThrough checks the forward value of DensityIndicator and its
// backward pass against its definition: for upstream gradients G, the gradient is that of the
// surrogate Σᵢⱼ clip(Gᵢⱼ, −1, 1)·(exp(s*ᵢ) − exp(lᵢⱼ)), taken by central differences.
func TestDensityIndicatorStraightThrough(t *testing.T) {
	star := []float64{-1, 0.3}
	lp := []float64{-2, -0.5, 0.1, 0.3, 1.2, -4}
	up := []float64{0.4, -3, 0.7, 2, -0.2, 1}
	tp := NewTape()
	s := tp.Variable(2, 1, append([]float64(nil), star...))
	l := tp.Variable(2, 3, append([]float64(nil), lp...))
	y := tp.DensityIndicator(s, l)
	if fmt.Sprint(y.Data) != "[1 0 0 0 0 1]" {
		t.Fatalf("DensityIndicator forward = %v, want [1 0 0 0 0 1]", y.Data)
	}
	tp.BackwardWith(y, up)
	surrogate := func(star, lp []float64) float64 {
		var sum float64
		for i := range 2 {
			for j := range 3 {
				k := i*3 + j
				sum += max(-1, min(1, up[k])) * (math.Exp(star[i]) - math.Exp(lp[k]))
			}
		}
		return sum
	}
	const h = 1e-6
	fd := func(v []float64, k int, f func() float64) float64 {
		x := v[k]
		v[k] = x + h
		a := f()
		v[k] = x - h
		b := f()
		v[k] = x
		return (a - b) / (2 * h)
	}
	for i := range star {
		want := fd(star, i, func() float64 { return surrogate(star, lp) })
		if math.Abs(s.Grad[i]-want) > 1e-6 {
			t.Errorf("∂/∂log q*[%d] = %.9g, surrogate's finite difference %.9g", i, s.Grad[i], want)
		}
	}
	for k := range lp {
		want := fd(lp, k, func() float64 { return surrogate(star, lp) })
		if math.Abs(l.Grad[k]-want) > 1e-6 {
			t.Errorf("∂/∂log q[%d] = %.9g, surrogate's finite difference %.9g", k, l.Grad[k], want)
		}
	}
}

func TestResidualMLPGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 23))
	res := NewResidualMLP(rng, 3, 6, 2, 2, Tanh)
	for _, b := range res.Blocks { // make the blocks matter for the check
		InitUniform(b[1].W, rng, 0.5)
	}
	ps := res.Params()
	var inputs []*Tensor
	for _, p := range ps {
		inputs = append(inputs, p.Tensor)
	}
	inputs = append(inputs, randVar(rng, 4, 3, -1, 1))
	checkGrad(t, "ResidualMLP", inputs, func(tp *Tape, in []*Tensor) *Tensor {
		for k, p := range ps {
			p.Tensor = in[k]
		}
		return res.Forward(tp, in[len(in)-1])
	})
}
