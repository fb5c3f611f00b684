package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestConvTaps checks ConvTaps against its reference loop to the bit, for depths on both
// sides of ConvTapsMax, column counts on both sides of the kernel's halves of eight, output
// rows of 1 to 7 windows (the kernel's blocks of four and what they leave), overlapping and
// strided windows, signed zeros, infinities and NaN; and that nothing between the outputs
// (ldc > n) or past them is written.
func TestConvTaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1e300}
	fill := func(v []float64) {
		for i := range v {
			if rng.IntN(40) == 0 {
				v[i] = special[rng.IntN(len(special))]
			} else {
				v[i] = rng.NormFloat64()
			}
		}
	}
	for k := 1; k <= ConvTapsMax+1; k++ {
		for _, n := range []int{1, 3, 8, 9, 16} {
			for _, shape := range [][2]int{{1, 1}, {1, 4}, {2, 5}, {3, 7}, {2, 28}, {1, 9}} {
				rows, cols := shape[0], shape[1]
				for _, sa := range []int{1, 2, 3} {
					off := make([]int, k)
					for l := range off { // windows of two kernel rows, 3 apart, with a gap
						off[l] = l/2*5 + l%2
					}
					span := off[k-1] + 1
					ra := (cols-1)*sa + span + 2
					ldw, ldc := n+3, n+2
					a, w, d := make([]float64, rows*ra+span), make([]float64, k*ldw), make([]float64, n)
					fill(a)
					fill(w)
					fill(d)
					got, want := make([]float64, rows*cols*ldc+1), make([]float64, rows*cols*ldc+1)
					for i := range got {
						got[i], want[i] = -7, -7
					}
					ConvTaps(rows, cols, k, n, a, ra, sa, off, w, ldw, d, got, ldc)
					ConvTapsGo(rows, cols, k, n, a, ra, sa, off, w, ldw, d, want, ldc)
					for i := range got {
						if math.Float64bits(got[i]) != math.Float64bits(want[i]) && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
							t.Fatalf("k %d, n %d, %d×%d windows %d apart: C[%d] = %v, want %v", k, n, rows, cols, sa, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestConvTapsSignedZero checks the rule of the sum's start: a product of −0 is added to
// +0 first, so that an output of only negative-zero products is +0 plus the bias row, not
// −0 (as the product's micro-tile gives).
func TestConvTapsSignedZero(t *testing.T) {
	for k := 1; k <= ConvTapsMax; k++ {
		a, off, w := make([]float64, k), make([]int, k), make([]float64, k)
		for l := range a {
			a[l], off[l], w[l] = math.Copysign(0, -1), l, 1
		}
		d, c := []float64{math.Copysign(0, -1)}, []float64{7}
		ConvTaps(1, 1, k, 1, a, 0, 1, off, w, 1, d, c, 1)
		if math.Float64bits(c[0]) != 0 {
			t.Fatalf("k %d: C = %v (bits %x), want +0", k, c[0], math.Float64bits(c[0]))
		}
	}
}

// TestConvGradW checks ConvGradW against its reference loop to the bit, for depths on both
// sides of ConvTapsMax and column counts on both sides of the kernel's halves of eight, over
// calls that carry their partial sums from one to the next and cross the end of a depth
// block inside a row, at its last output and not at all; with signed zeros, infinities and
// NaN; and that nothing of C or S outside the k×n values is written.
func TestConvGradW(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1e300}
	fill := func(v []float64) {
		for i := range v {
			if rng.IntN(60) == 0 {
				v[i] = special[rng.IntN(len(special))]
			} else {
				v[i] = rng.NormFloat64()
			}
		}
	}
	same := func(x, y float64) bool {
		return math.Float64bits(x) == math.Float64bits(y) || math.IsNaN(x) && math.IsNaN(y)
	}
	for k := 1; k <= ConvTapsMax+1; k++ {
		for _, n := range []int{1, 3, 8, 9, 16} {
			for _, shape := range [][2]int{{1, 1}, {3, 7}, {2, 28}, {1, 300}, {11, 29}} {
				rows, cols := shape[0], shape[1]
				for _, left := range []int{1, 5, cols, KC} {
					sa := 1 + (k+n)%3
					off := make([]int, k)
					for l := range off { // windows of two kernel rows, 3 apart, with a gap
						off[l] = l/2*5 + l%2
					}
					span := off[k-1] + 1
					ra := (cols-1)*sa + span + 2
					lddy, ldc := n+3, n+2
					a, dy := make([]float64, rows*ra+span), make([]float64, rows*cols*lddy)
					fill(a)
					fill(dy)
					sGot, sWant := make([]float64, k*16), make([]float64, k*16)
					cGot, cWant := make([]float64, k*ldc), make([]float64, k*ldc)
					fill(sGot)
					fill(cGot)
					for l := 0; l < k; l++ { // outside the k×n values: a marker
						for o := n; o < 16; o++ {
							sGot[l*16+o] = -7
						}
						for o := n; o < ldc; o++ {
							cGot[l*ldc+o] = -7
						}
					}
					copy(sWant, sGot)
					copy(cWant, cGot)
					lGot, lWant := left, left
					for call := 0; call < 3; call++ { // the sums carried over three calls
						lGot = ConvGradW(rows, cols, k, n, a, ra, sa, off, dy, lddy, sGot, cGot, ldc, lGot)
						lWant = ConvGradWGo(rows, cols, k, n, a, ra, sa, off, dy, lddy, sWant, cWant, ldc, lWant)
					}
					if lGot != lWant {
						t.Fatalf("k %d, n %d, %d×%d, left %d: %d left, want %d", k, n, rows, cols, left, lGot, lWant)
					}
					for i := range sGot {
						if !same(sGot[i], sWant[i]) {
							t.Fatalf("k %d, n %d, %d×%d, left %d: S[%d] = %v, want %v", k, n, rows, cols, left, i, sGot[i], sWant[i])
						}
					}
					for i := range cGot {
						if !same(cGot[i], cWant[i]) {
							t.Fatalf("k %d, n %d, %d×%d, left %d: C[%d] = %v, want %v", k, n, rows, cols, left, i, cGot[i], cWant[i])
						}
					}
				}
			}
		}
	}
}

// TestConvGradWSignedZero checks the rule of the sums' start: products of −0 added to
// cleared sums give +0, and a sum of +0 added to a C of −0 gives +0, as in the product's
// micro-tile.
func TestConvGradWSignedZero(t *testing.T) {
	for k := 1; k <= ConvTapsMax; k++ {
		a, off := make([]float64, k), make([]int, k)
		for l := range a {
			a[l], off[l] = math.Copysign(0, -1), l
		}
		s, c := make([]float64, k*16), make([]float64, k)
		for l := range c {
			c[l] = math.Copysign(0, -1)
		}
		if left := ConvGradW(1, 1, k, 1, a, 0, 1, off, []float64{1}, 1, s, c, 1, 1); left != KC {
			t.Fatalf("k %d: %d left after a block's end, want %d", k, left, KC)
		}
		for l, v := range c {
			if math.Float64bits(v) != 0 {
				t.Fatalf("k %d: C[%d] = %v (bits %x), want +0", k, l, v, math.Float64bits(v))
			}
		}
	}
}
