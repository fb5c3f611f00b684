package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestConvWeightGradNonFiniteInput: with one NaN or ±Inf in the input, the in-place
// convolution's weight gradient is non-finite (NaN, +Inf or −Inf) in the same entries as that
// of the im2col path, for every position of the bad value and both orientations of the
// in-place weight gradient's products. The in-place products also run
// over the virtual output rows that wrap into the next image row (or series), whose dY is
// zero; 0·NaN and 0·Inf are NaN, so a bad value at the edge of a row made taps NaN that never
// multiply it with an output's dY.
func TestConvWeightGradNonFiniteInput(t *testing.T) {
	defer func(old matmulPath) { forcedPath = old }(forcedPath)
	defer func() { forceWeightGrad = 0 }()
	rng := rand.New(rand.NewPCG(49, 50))
	for _, c := range []struct {
		name string
		c1   *Conv1DConfig
		c2   *Conv2DConfig
	}{
		{"1D padded", &Conv1DConfig{Channels: 3, Length: 12, Kernel: 5, Padding: 2}, nil},
		{"1D padded, 16 channels", &Conv1DConfig{Channels: 16, Length: 8, Kernel: 3, Padding: 1}, nil},
		{"1D unpadded", &Conv1DConfig{Channels: 2, Length: 10, Kernel: 4}, nil},
		{"2D padded", nil, &Conv2DConfig{Channels: 8, Height: 5, Width: 6, Kernel: [2]int{3, 3}, Padding: [2]int{1, 1}}},
		{"2D padded, 16 channels", nil, &Conv2DConfig{Channels: 16, Height: 4, Width: 5, Kernel: [2]int{3, 2}, Padding: [2]int{2, 1}}},
		{"2D wide kernel", nil, &Conv2DConfig{Channels: 4, Height: 4, Width: 7, Kernel: [2]int{2, 4}, Padding: [2]int{0, 3}}},
		{"2D unpadded", nil, &Conv2DConfig{Channels: 8, Height: 5, Width: 6, Kernel: [2]int{2, 3}}},
	} {
		const n, cout = 3, 4
		var g convGeom
		if c.c1 != nil {
			g = c.c1.geom("", false)
		} else {
			g = c.c2.geom("", false)
		}
		x0 := randConst(rng, n, g.in(), -1, 1).Data
		w0, b0 := randConst(rng, g.taps(), cout, -1, 1).Data, randConst(rng, 1, cout, -1, 1).Data
		dy := make([]float64, n*g.out()*cout)
		for i := range dy {
			dy[i] = rng.NormFloat64() // no zero: every product with a bad value is non-finite
		}
		grads := func(path matmulPath, x []float64) (dw, dx []float64) {
			forcedPath = path
			defer func() { forcedPath = pathAuto }()
			tp := NewTape()
			xv, wv, bv := tp.Variable(n, g.in(), x), tp.Variable(g.taps(), cout, w0), tp.Variable(1, cout, b0)
			var y *Tensor
			if c.c1 != nil {
				y = tp.Conv1D(xv, wv, bv, *c.c1)
			} else {
				y = tp.Conv2D(xv, wv, bv, *c.c2)
			}
			tp.BackwardWith(y, dy)
			return wv.Grad, xv.Grad
		}
		if ownWidth() > 0 && !g.inPlace() {
			t.Fatalf("%s: not in place", c.name)
		}
		for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			for p := 0; p < g.h*g.w; p++ {
				x := append([]float64(nil), x0...)
				at := (p%n)*g.in() + p*g.c + p%g.c // example p mod n, pixel p, channel p mod C
				x[at] = bad
				colW, colX := grads(blasPath(), x)
				for _, force := range []int{-1, 1} { // Pᵀ·dY and (dYᵀ·P)ᵀ
					forceWeightGrad = force
					ownW, ownX := grads(pathAuto, x)
					what := fmt.Sprintf("%s (weight gradient orientation %d), %v at example %d pixel %d", c.name, force, bad, p%n, p)
					sameClasses(t, what+": dW", ownW, colW)
					sameClasses(t, what+": dX", ownX, colX)
				}
				forceWeightGrad = 0
			}
		}
	}
}

// sameClasses fails t where got and want differ in being NaN, +Inf, −Inf or finite.
func sameClasses(t *testing.T, what string, got, want []float64) {
	t.Helper()
	class := func(v float64) string {
		switch {
		case math.IsNaN(v):
			return "NaN"
		case math.IsInf(v, 0):
			return fmt.Sprint(v)
		}
		return "finite"
	}
	for i := range want {
		if class(got[i]) != class(want[i]) {
			t.Errorf("%s[%d] is %v in place, %v through im2col", what, i, got[i], want[i])
			return
		}
	}
}
