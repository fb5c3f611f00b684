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
