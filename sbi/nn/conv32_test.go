package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/runenv"
)

// conv32Case is a convolution for the tests of the float32 path: 1-D or 2-D, n examples,
// cout output channels.
type conv32Case struct {
	c1      *Conv1DConfig
	c2      *Conv2DConfig
	n, cout int
}

func (c conv32Case) String() string {
	if c.c1 != nil {
		return fmt.Sprintf("1D %+v n=%d out=%d", *c.c1, c.n, c.cout)
	}
	return fmt.Sprintf("2D %+v n=%d out=%d", *c.c2, c.n, c.cout)
}

func (c conv32Case) geom() convGeom {
	if c.c1 != nil {
		return c.c1.geom("", false)
	}
	return c.c2.geom("", false)
}

// conv32Cases cover every option the float32 convolutions accept: padding or none, causal,
// kernels of one tap and of one pixel, rectangular kernels, padding wider than half the
// kernel, channels of one, a few, a whole panel and more than a panel, outputs of one, a
// few, 16, 32 and more than a panel, rows of fewer pixels than a tile, and blocks of several
// examples (series) and of one (images).
var conv32Cases = []conv32Case{
	{c1: &Conv1DConfig{Channels: 2, Length: 20, Kernel: 5, Padding: 2}, n: 7, cout: 16},
	{c1: &Conv1DConfig{Channels: 16, Length: 13, Kernel: 5, Padding: 2}, n: 5, cout: 32},
	{c1: &Conv1DConfig{Channels: 3, Length: 9, Kernel: 4, Causal: true}, n: 4, cout: 5},
	{c1: &Conv1DConfig{Channels: 33, Length: 7, Kernel: 3, Padding: 1}, n: 3, cout: 40},
	{c1: &Conv1DConfig{Channels: 1, Length: 11, Kernel: 1}, n: 3, cout: 1},
	{c1: &Conv1DConfig{Channels: 4, Length: 5, Kernel: 2, Padding: 3}, n: 2, cout: 7},
	{c1: &Conv1DConfig{Channels: 5, Length: 30, Kernel: 7}, n: 60, cout: 3},            // several blocks
	{c1: &Conv1DConfig{Channels: 2, Length: 7, Kernel: 3, Padding: 1}, n: 3, cout: 16}, // dY of an odd number of rows of 16
	{c2: &Conv2DConfig{Channels: 1, Height: 8, Width: 9, Kernel: [2]int{3, 3}, Padding: [2]int{1, 1}}, n: 3, cout: 16},
	{c2: &Conv2DConfig{Channels: 16, Height: 6, Width: 7, Kernel: [2]int{3, 3}, Padding: [2]int{1, 1}}, n: 2, cout: 32},
	{c2: &Conv2DConfig{Channels: 3, Height: 5, Width: 4, Kernel: [2]int{2, 3}, Padding: [2]int{0, 2}}, n: 3, cout: 33},
	{c2: &Conv2DConfig{Channels: 40, Height: 3, Width: 3, Kernel: [2]int{1, 1}}, n: 2, cout: 6},
	{c2: &Conv2DConfig{Channels: 2, Height: 4, Width: 13, Kernel: [2]int{4, 2}, Padding: [2]int{2, 1}}, n: 2, cout: 9},
	{c2: &Conv2DConfig{Channels: 2, Height: 3, Width: 4, Kernel: [2]int{2, 2}, Padding: [2]int{3, 3}}, n: 2, cout: 5},   // padding wider than the kernel
	{c2: &Conv2DConfig{Channels: 16, Height: 3, Width: 3, Kernel: [2]int{2, 3}, Padding: [2]int{2, 3}}, n: 2, cout: 20}, // the same, input gradient by full convolution
}

// conv32Result is the output and the gradients of a convolution, in float64.
type conv32Result struct{ y, dx, dw, db []float64 }

// run64 runs the float64 convolution of c on x with weights w and bias b and propagates dy.
func (c conv32Case) run64(x, w, b, dy []float64) conv32Result {
	g := c.geom()
	tp := NewTape()
	xv := tp.Variable(c.n, g.in(), x)
	wv, bv := NewVariable(g.taps(), c.cout, w), NewVariable(1, c.cout, b)
	var y *Tensor
	if c.c1 != nil {
		y = tp.Conv1D(xv, wv, bv, *c.c1)
	} else {
		y = tp.Conv2D(xv, wv, bv, *c.c2)
	}
	tp.BackwardWith(y, dy)
	return conv32Result{y.Data, xv.Grad, wv.Grad, bv.Grad}
}

// run32 is run64 on the float32 path.
func (c conv32Case) run32(tp *Tape, x []float32, w, b *Tensor, dy []float32) *Tensor32 {
	g := c.geom()
	xv := tp.Variable32(c.n, g.in(), x)
	var y *Tensor32
	if c.c1 != nil {
		y = tp.Conv1D32(xv, w, b, *c.c1)
	} else {
		y = tp.Conv2D32(xv, w, b, *c.c2)
	}
	tp.BackwardWith32(y, dy)
	return y
}

func (c conv32Case) result32(x []float32, w, b, dy []float64) conv32Result {
	wv, bv := NewVariable(len(w)/c.cout, c.cout, w), NewVariable(1, c.cout, b)
	tp := NewTape()
	y := c.run32(tp, x, wv, bv, to32(dy))
	return conv32Result{to64(y.Data), to64(tp.tensors32[0].Grad), wv.Grad, bv.Grad}
}

// inputs returns random inputs of c in [−1, 1], all float32 values (edited by edit, if not
// nil, before the others are drawn), with weights, bias and dY.
func (c conv32Case) inputs(rng *rand.Rand, edit func([]float32)) (x []float32, w, b, dy []float64) {
	g := c.geom()
	x = make([]float32, c.n*g.in())
	for i := range x {
		x[i] = float32(2*rng.Float64() - 1)
	}
	if edit != nil {
		edit(x)
	}
	w, b = make([]float64, g.taps()*c.cout), make([]float64, c.cout)
	dy = make([]float64, c.n*g.out()*c.cout)
	for _, v := range [][]float64{w, b, dy} {
		for i := range v {
			v[i] = float64(float32(2*rng.Float64() - 1))
		}
	}
	return x, w, b, dy
}

// compare returns the float32 results, the float64 ones on the same values, and the float64
// ones on their magnitudes (the sums of the magnitudes of the terms of each entry).
func (c conv32Case) compare(x []float32, w, b, dy []float64) (got, want, mag conv32Result) {
	return c.result32(x, w, b, dy), c.run64(to64(x), w, b, dy), c.run64(abs64(to64(x)), abs64(w), abs64(b), abs64(dy))
}

func to32(v []float64) []float32 {
	r := make([]float32, len(v))
	for i, x := range v {
		r[i] = float32(x)
	}
	return r
}

func to64(v []float32) []float64 {
	r := make([]float64, len(v))
	for i, x := range v {
		r[i] = float64(x)
	}
	return r
}

func abs64(v []float64) []float64 {
	r := make([]float64, len(v))
	for i, x := range v {
		r[i] = math.Abs(x)
	}
	return r
}

// worst32 returns the largest ratio |got − want| / (2·terms·2⁻²⁴·mag) over the entries
// (mag: the sum of the magnitudes of the terms, terms: how many are summed), with an entry
// of which want is not finite counting as 0 if got has its class (NaN, +Inf or −Inf) and
// +Inf otherwise, and where.
//
// A float32 sum of N terms accumulated in any order, with or without fused multiply-adds,
// is within N·u·Σ|terms| of the exact sum (u = 2⁻²⁴; Higham 2002, eq. 3.5, to first order);
// the factor 2 covers the rounding of each product that a plain multiply adds and the
// second-order terms. The inputs are float32 values on both sides, so the float64 result is
// the exact sum up to 2⁻⁵³.
func worst32(got, want, mag []float64, terms int) (float64, int) {
	worst, at := 0.0, -1
	for i, w := range want {
		g, r := got[i], 0.0
		switch {
		case math.IsNaN(w) || math.IsInf(w, 0):
			if !(math.IsNaN(w) && math.IsNaN(g) || g == w) {
				r = math.Inf(1)
			}
		case g != w:
			r = math.Abs(g-w) / (2 * float64(terms) * 0x1p-24 * mag[i])
		}
		if r > worst || math.IsNaN(r) {
			worst, at = r, i
		}
	}
	return worst, at
}

// TestConv32MatchesFloat64 compares the float32 convolutions' outputs and their input,
// weight and bias gradients with the float64 ones on the same float32 values, entry by
// entry within worst32's bound, and checks that the bound is tight enough to catch one
// missing term: the float64 results without one tap of the weights (the output and the
// input gradient) or without one output's gradient (the weight gradient) are out of it.
func TestConv32MatchesFloat64(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	for _, c := range conv32Cases {
		t.Run(c.String(), func(t *testing.T) {
			g := c.geom()
			x, w, b, dy := c.inputs(rng, nil)
			got, want, mag := c.compare(x, w, b, dy)
			terms := []int{g.taps() + 1, g.kh * g.kw * c.cout, c.n*g.out() + 1, c.n * g.out()}
			names := []string{"output", "input gradient", "weight gradient", "bias gradient"}
			for k, pair := range [][3][]float64{{got.y, want.y, mag.y}, {got.dx, want.dx, mag.dx}, {got.dw, want.dw, mag.dw}, {got.db, want.db, mag.db}} {
				if r, at := worst32(pair[0], pair[1], pair[2], terms[k]); r > 1 {
					t.Errorf("%s entry %d is %v, want %v (%.3g times the bound)", names[k], at, pair[0][at], pair[1][at], r)
				}
			}
			// one tap of the weights dropped: the output and the input gradient differ
			tap := rng.IntN(g.taps())
			wd := append([]float64(nil), w...)
			clear(wd[tap*c.cout : (tap+1)*c.cout])
			drop := c.run64(to64(x), wd, b, dy)
			if r, _ := worst32(got.y, drop.y, mag.y, terms[0]); r <= 1 {
				t.Errorf("output within the bound of the convolution without tap %d", tap)
			}
			if r, _ := worst32(got.dx, drop.dx, mag.dx, terms[1]); r <= 1 && c.n*g.out() > 0 {
				t.Errorf("input gradient within the bound of the convolution without tap %d", tap)
			}
			// one output's gradient dropped (the centre's, whose window reaches the input): the
			// weight gradient differs
			dyd := append([]float64(nil), dy...)
			mid := ((g.oh/2)*g.ow + g.ow/2) * c.cout // the centre of the first example
			clear(dyd[mid : mid+c.cout])
			drop = c.run64(to64(x), w, b, dyd)
			if r, _ := worst32(got.dw, drop.dw, mag.dw, terms[2]); r <= 1 {
				t.Errorf("weight gradient within the bound of the gradient without the centre output's")
			}
		})
	}
}

// TestConv32NonFinite: a NaN and an infinity in the input make the same outputs and weight
// gradients non-finite, of the same class, as in float64 (conv_nonfinite_test.go), and leave
// the others within the bound of TestConv32MatchesFloat64.
func TestConv32NonFinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(63, 64))
	for _, c := range conv32Cases {
		t.Run(c.String(), func(t *testing.T) {
			g := c.geom()
			x, w, b, dy := c.inputs(rng, func(x []float32) {
				x[rng.IntN(len(x))] = float32(math.NaN())
				x[rng.IntN(len(x))] = float32(math.Inf(1))
			})
			got, want, mag := c.compare(x, w, b, dy)
			if r, at := worst32(got.y, want.y, mag.y, g.taps()+1); r > 1 {
				t.Errorf("output entry %d is %v, want %v", at, got.y[at], want.y[at])
			}
			if r, at := worst32(got.dw, want.dw, mag.dw, c.n*g.out()+1); r > 1 {
				t.Errorf("weight gradient entry %d is %v, want %v", at, got.dw[at], want.dw[at])
			}
		})
	}
}

// TestConv32RefusesStrides: strides and dilations other than 1 panic with a message that
// says what is wanted.
func TestConv32RefusesStrides(t *testing.T) {
	w := NewVariable(3*2, 4, nil)
	for _, f := range []func(tp *Tape){
		func(tp *Tape) {
			tp.Conv1D32(tp.Variable32(1, 20, make([]float32, 20)), w, nil, Conv1DConfig{Channels: 2, Length: 10, Kernel: 3, Stride: 2})
		},
		func(tp *Tape) {
			tp.Conv1D32(tp.Variable32(1, 20, make([]float32, 20)), w, nil, Conv1DConfig{Channels: 2, Length: 10, Kernel: 3, Dilation: 2})
		},
		func(tp *Tape) {
			tp.Conv2D32(tp.Variable32(1, 50, make([]float32, 50)), w, nil, Conv2DConfig{Channels: 2, Height: 5, Width: 5, Kernel: [2]int{1, 3}, Stride: [2]int{1, 2}})
		},
	} {
		func() {
			defer func() {
				msg := fmt.Sprint(recover())
				if !strings.Contains(msg, "want 1") {
					t.Errorf("panic %q, want one saying strides and dilations must be 1", msg)
				}
			}()
			f(NewTape())
		}()
	}
}

// TestConv32NoAllocs: after the first, a forward and backward pass of the float32
// convolutions allocates nothing.
func TestConv32NoAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(65, 66))
	for _, c := range []conv32Case{conv32Cases[0], conv32Cases[8]} {
		g := c.geom()
		x := make([]float32, c.n*g.in())
		dy := make([]float32, c.n*g.out()*c.cout)
		w, b := randVar(rng, g.taps(), c.cout, -1, 1), randVar(rng, 1, c.cout, -1, 1)
		tp := NewTape()
		step := func() {
			c.run32(tp, x, w, b, dy)
			tp.Reset()
		}
		step()
		if a := testing.AllocsPerRun(20, step); a != 0 {
			t.Errorf("%v: %v allocations per step, want 0", c, a)
		}
	}
}

// TestConv32ThreadsDeterministic: the outputs and gradients of the float32 convolutions do
// not change a bit with the number of goroutines.
func TestConv32ThreadsDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(67, 68))
	cases := []conv32Case{
		{c1: &Conv1DConfig{Channels: 4, Length: 64, Kernel: 5, Padding: 2}, n: 300, cout: 16},
		{c2: &Conv2DConfig{Channels: 8, Height: 20, Width: 20, Kernel: [2]int{3, 3}, Padding: [2]int{1, 1}}, n: 40, cout: 32},
	}
	for _, c := range cases {
		g := c.geom()
		x := make([]float32, c.n*g.in())
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		dy := make([]float32, c.n*g.out()*c.cout)
		for i := range dy {
			dy[i] = float32(rng.NormFloat64())
		}
		w0, b0 := randVar(rng, g.taps(), c.cout, -1, 1), randVar(rng, 1, c.cout, -1, 1)
		run := func(threads int) [][]float64 {
			runenv.SetThreads(threads)
			defer runenv.SetThreads(0)
			w, b := NewVariable(w0.Rows, w0.Cols, w0.Data), NewVariable(1, c.cout, b0.Data)
			tp := NewTape()
			y := c.run32(tp, x, w, b, dy)
			return [][]float64{to64(y.Data), to64(tp.tensors32[0].Grad), w.Grad, b.Grad}
		}
		one, three := run(1), run(3)
		for k := range one {
			for i := range one[k] {
				if math.Float64bits(one[k][i]) != math.Float64bits(three[k][i]) {
					t.Fatalf("%v: result %d, element %d: %v on one goroutine, %v on three", c, k, i, one[k][i], three[k][i])
				}
			}
		}
	}
}

// TestMaxPool32MatchesFloat64: the float32 max poolings give the values of the float64 ones
// on the same float32 inputs, exactly, and send the gradient to the same positions; the
// inputs are rounded to a few values so that ties occur, and a few are NaN.
func TestMaxPool32MatchesFloat64(t *testing.T) {
	rng := rand.New(rand.NewPCG(69, 70))
	for _, cfg := range []Conv2DConfig{
		{Channels: 2, Height: 5, Width: 7, Kernel: [2]int{3, 2}, Stride: [2]int{2, 2}, Padding: [2]int{1, 1}},
		{Channels: 3, Height: 1, Width: 12, Kernel: [2]int{1, 2}},
		{Channels: 1, Height: 1, Width: 9, Kernel: [2]int{1, 3}, Stride: [2]int{1, 1}},
		{Channels: 2, Height: 6, Width: 6, Kernel: [2]int{2, 2}},
		{Channels: 1, Height: 4, Width: 5, Kernel: [2]int{3, 3}, Padding: [2]int{1, 1}},
	} {
		g := cfg.geom("", true)
		const n = 3
		x := make([]float32, n*g.in())
		for k := range x {
			x[k] = float32(math.Round(8*rng.Float64()-4) / 4)
			if rng.IntN(17) == 0 {
				x[k] = float32(math.NaN())
			}
		}
		dy := make([]float32, n*g.out()*g.c)
		for k := range dy {
			dy[k] = float32(rng.IntN(7) + 1)
		}
		tp := NewTape()
		x32 := tp.Variable32(n, g.in(), x)
		x64 := tp.Variable(n, g.in(), to64(x))
		var y32 *Tensor32
		var y64 *Tensor
		if g.h == 1 {
			c1 := Conv1DConfig{Channels: g.c, Length: g.w, Kernel: g.kw, Stride: cfg.Stride[1], Padding: g.pl}
			y32, y64 = tp.MaxPool1D32(x32, c1), tp.MaxPool1D(x64, c1)
		} else {
			y32, y64 = tp.MaxPool2D32(x32, cfg), tp.MaxPool2D(x64, cfg)
		}
		tp.BackwardWith(tp.Add(tp.To64(y32), y64), to64(dy)) // both get dy
		// to the bit: −0 and +0 differ
		same := func(a, b float64) bool {
			return a == b && math.Signbit(a) == math.Signbit(b) || a != a && b != b
		}
		for k, v := range y64.Data {
			if !same(float64(y32.Data[k]), v) {
				t.Fatalf("%+v: output %d is %v, want %v", cfg, k, y32.Data[k], v)
			}
		}
		for k, v := range x64.Grad {
			if float64(x32.Grad[k]) != v {
				t.Fatalf("%+v: gradient %d is %v, want %v", cfg, k, x32.Grad[k], v)
			}
		}
	}
	// The first of equal values wins, to the sign of a zero: the window (−0, +0) gives −0,
	// (+0, −0) gives +0, as the float64 op gives (Go's max would give +0 for both).
	negZero := float32(math.Copysign(0, -1))
	tp := NewTape()
	for _, cfg := range []Conv2DConfig{
		{Channels: 1, Height: 1, Width: 4, Kernel: [2]int{1, 2}, Stride: [2]int{1, 2}},
		{Channels: 1, Height: 2, Width: 2, Kernel: [2]int{1, 2}, Stride: [2]int{1, 2}},
	} {
		x := tp.Variable32(1, 4, []float32{negZero, 0, 0, negZero})
		var y *Tensor32
		if cfg.Height == 1 {
			y = tp.MaxPool1D32(x, Conv1DConfig{Channels: 1, Length: 4, Kernel: 2, Stride: 2})
		} else {
			y = tp.MaxPool2D32(x, cfg)
		}
		if len(y.Data) != 2 || !math.Signbit(float64(y.Data[0])) || math.Signbit(float64(y.Data[1])) {
			t.Errorf("%+v: max pooling of (−0, +0) and (+0, −0) gave %v (sign bits %v, %v), want −0 then +0",
				cfg, y.Data, math.Signbit(float64(y.Data[0])), math.Signbit(float64(y.Data[1])))
		}
	}
}
