package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestConvTapsMatchesProduct checks the forward pass on kernels.ConvTaps against the product
// path it replaces (im2col, or in place for series), bit for bit: on series and images,
// padded, strided, dilated and causal, with output channels on both sides of the kernel's 16,
// batches of several blocks whose products end in a partial micro-tile, and tiny inputs
// whose sums underflow to −0 beside a bias of −0 (the partial tile's rule, fixTileRows).
func TestConvTapsMatchesProduct(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	type conv struct {
		name string
		g    convGeom
		run  func(tp *Tape, x, w, b *Tensor) *Tensor
	}
	c1 := func(name string, cfg Conv1DConfig) conv {
		return conv{name, cfg.geom("", false), func(tp *Tape, x, w, b *Tensor) *Tensor { return tp.Conv1D(x, w, b, cfg) }}
	}
	c2 := func(name string, cfg Conv2DConfig) conv {
		return conv{name, cfg.geom("", false), func(tp *Tape, x, w, b *Tensor) *Tensor { return tp.Conv2D(x, w, b, cfg) }}
	}
	for _, c := range []conv{
		c1("1D 2×5 padded", Conv1DConfig{Channels: 2, Length: 47, Kernel: 5, Padding: 2}),
		c1("1D 3×4", Conv1DConfig{Channels: 3, Length: 31, Kernel: 4}),
		c1("1D causal dilated strided", Conv1DConfig{Channels: 2, Length: 60, Kernel: 4, Stride: 2, Dilation: 3, Causal: true}),
		c1("1D 1×12", Conv1DConfig{Channels: 1, Length: 29, Kernel: 12, Padding: 1}),
		c2("2D 1×3×3 padded", Conv2DConfig{Channels: 1, Height: 13, Width: 11, Kernel: [2]int{3, 3}, Padding: [2]int{1, 1}}),
		c2("2D 2×2×3 strided dilated", Conv2DConfig{Channels: 2, Height: 12, Width: 10, Kernel: [2]int{2, 3}, Stride: [2]int{2, 1}, Dilation: [2]int{1, 2}, Padding: [2]int{1, 0}}),
	} {
		if ownWidth() == 16 && !c.g.convTaps() {
			t.Fatalf("%s: not on ConvTaps", c.name)
		}
		for _, cout := range []int{1, 6, 16, 21} {
			n := 3*c.g.block() + 5
			x, w, b := randConst(rng, n, c.g.in(), -1, 1), randConst(rng, c.g.taps(), cout, -1, 1), randConst(rng, 1, cout, -1, 1)
			for i := 0; i < n; i += 7 { // sums that underflow to −0
				for j := range x.Data[i*c.g.in() : (i+1)*c.g.in()] {
					x.Data[i*c.g.in()+j] = -1e-200
				}
			}
			for j := range b.Data {
				if j%2 == 0 {
					b.Data[j] = math.Copysign(0, -1)
				}
			}
			wt := randConst(rng, c.g.taps(), cout, 1e-200, 2e-200)
			for _, weights := range []*Tensor{w, wt} {
				for _, bias := range []*Tensor{b, nil} {
					noConvTaps = true
					want := append([]float64(nil), c.run(NewTape(), x, weights, bias).Data...)
					noConvTaps = false
					got := c.run(NewTape(), x, weights, bias).Data
					for i := range want {
						if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
							t.Fatalf("%s, %d outputs (bias %v): output %d is %v, the product path gives %v", c.name, cout, bias != nil, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestConvGradTapsMatchesProduct checks the weight gradient on kernels.ConvGradW against the
// product path it replaces (colᵀ·dY through im2col, or in place for series), bit for bit,
// with the input's and the bias's gradients: on the geometries of TestConvTapsMatchesProduct,
// output channels on both sides of the kernel's 16, batches of several blocks whose depth
// blocks of kernels.KC rows end inside an example, products that underflow to −0, signed
// zeros in dY, and a NaN and an infinity in the input, one of them where the series' rows
// that wrap read it.
func TestConvGradTapsMatchesProduct(t *testing.T) {
	rng := rand.New(rand.NewPCG(49, 50))
	same := func(x, y float64) bool {
		return math.Float64bits(x) == math.Float64bits(y) || math.IsNaN(x) && math.IsNaN(y)
	}
	for _, c := range []struct {
		name   string
		c1     *Conv1DConfig
		c2     *Conv2DConfig
		series bool // in place, the block's series at once
	}{
		{"1D 2×5 padded", &Conv1DConfig{Channels: 2, Length: 47, Kernel: 5, Padding: 2}, nil, true},
		{"1D 3×4", &Conv1DConfig{Channels: 3, Length: 31, Kernel: 4}, nil, true},
		{"1D causal dilated strided", &Conv1DConfig{Channels: 2, Length: 60, Kernel: 4, Stride: 2, Dilation: 3, Causal: true}, nil, false},
		{"1D 1×12", &Conv1DConfig{Channels: 1, Length: 29, Kernel: 12, Padding: 1}, nil, true},
		{"2D 1×3×3 padded", nil, &Conv2DConfig{Channels: 1, Height: 13, Width: 11, Kernel: [2]int{3, 3}, Padding: [2]int{1, 1}}, false},
		{"2D 2×2×3 strided dilated", nil, &Conv2DConfig{Channels: 2, Height: 12, Width: 10, Kernel: [2]int{2, 3}, Stride: [2]int{2, 1}, Dilation: [2]int{1, 2}, Padding: [2]int{1, 0}}, false},
	} {
		var g convGeom
		if c.c1 != nil {
			g = c.c1.geom("", false)
		} else {
			g = c.c2.geom("", false)
		}
		if ownWidth() == 16 && (!g.convTaps() || g.inPlace() != c.series) {
			t.Fatalf("%s: on ConvTaps %v, in place %v, want true, %v", c.name, g.convTaps(), g.inPlace(), c.series)
		}
		for _, cout := range []int{1, 6, 16, 21} {
			n := 3*g.block() + 5
			x0 := randConst(rng, n, g.in(), -1, 1)
			for i := 0; i < n; i += 7 { // products that underflow to −0
				for j := range x0.Data[i*g.in() : (i+1)*g.in()] {
					x0.Data[i*g.in()+j] = -1e-200
				}
			}
			xnf := randConst(rng, n, g.in(), -1, 1) // non-finite inputs, which make some of dW NaN
			xnf.Data[2*g.in()+g.in()/2] = math.NaN()
			xnf.Data[(g.block()+1)*g.in()-1] = math.Inf(1) // the last input of a block's first series but one
			w0, b0 := randConst(rng, g.taps(), cout, -1, 1), randConst(rng, 1, cout, -1, 1)
			dy := make([]float64, n*g.out()*cout)
			for i := range dy {
				switch {
				case i%11 == 0:
					dy[i] = math.Copysign(0, -1)
				case i%13 == 0:
					dy[i] = 1e-200
				default:
					dy[i] = rng.NormFloat64()
				}
			}
			grads := func(x0 *Tensor, product bool) [][]float64 {
				noConvTaps = product
				defer func() { noConvTaps = false }()
				tp := NewTape()
				x, w, b := tp.Variable(n, g.in(), x0.Data), tp.Variable(g.taps(), cout, w0.Data), tp.Variable(1, cout, b0.Data)
				var y *Tensor
				if c.c1 != nil {
					y = tp.Conv1D(x, w, b, *c.c1)
				} else {
					y = tp.Conv2D(x, w, b, *c.c2)
				}
				tp.BackwardWith(y, dy)
				return [][]float64{w.Grad, x.Grad, b.Grad}
			}
			for _, x := range []*Tensor{x0, xnf} {
				want, got := grads(x, true), grads(x, false)
				for k, what := range []string{"dW", "dX", "db"} {
					for i := range want[k] {
						if !same(got[k][i], want[k][i]) {
							t.Fatalf("%s, %d outputs, finite %v: %s[%d] = %v, the product path gives %v", c.name, cout, x == x0, what, i, got[k][i], want[k][i])
						}
					}
				}
			}
		}
	}
}
