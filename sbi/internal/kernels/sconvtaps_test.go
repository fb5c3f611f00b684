package kernels

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestConvTaps32 checks ConvTaps32 against its reference loop to the bit, for depths on both
// sides of ConvTaps32Max, column counts up to the 16 lanes, output rows of 1 to 28 windows
// (the kernel's blocks of eight, the last block stepped back over a remainder, and the
// windows one at a time of a row shorter than a block), overlapping and strided windows,
// signed zeros, infinities and NaN; and that nothing between the outputs (ldc > n) or past
// them is written.
func TestConvTaps32(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	fill := func(v []float32) { fillSpecial32(rng, v, 40) }
	for k := 1; k <= ConvTaps32Max+1; k++ {
		for _, n := range []int{1, 3, 15, 16} {
			for _, shape := range [][2]int{{1, 1}, {2, 5}, {3, 7}, {1, 8}, {2, 9}, {1, 15}, {3, 17}, {2, 28}} {
				rows, cols := shape[0], shape[1]
				for _, sa := range []int{1, 2, 3} {
					off := make([]int, k)
					for l := range off { // windows of three kernel rows, 7 apart, with gaps
						off[l] = l/3*7 + l%3
					}
					span := off[k-1] + 1
					ra := (cols-1)*sa + span + 2
					ldw, ldc := n+3, n+2
					a, w, d := make([]float32, rows*ra+span), make([]float32, k*ldw), make([]float32, n)
					fill(a)
					fill(w)
					fill(d)
					got, want := make([]float32, rows*cols*ldc+1), make([]float32, rows*cols*ldc+1)
					for i := range got {
						got[i], want[i] = -7, -7
					}
					ConvTaps32(rows, cols, k, n, a, ra, sa, off, w, ldw, d, got, ldc)
					ConvTaps32Go(rows, cols, k, n, a, ra, sa, off, w, ldw, d, want, ldc)
					for i := range got {
						if !same32(got[i], want[i]) {
							t.Fatalf("k %d, n %d, %d×%d windows %d apart: C[%d] = %v, want %v", k, n, rows, cols, sa, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestConvTaps32SignedZero checks the rule of the sum's start: products of −0 added to a
// bias of −0 give −0, to a bias of +0 give +0 (the sum starts at the bias).
func TestConvTaps32SignedZero(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	for k := 1; k <= ConvTaps32Max; k++ {
		for _, cols := range []int{1, 8} {
			for _, bias := range []float32{negZero, 0} {
				a, off, w := make([]float32, k+cols), make([]int, k), make([]float32, k)
				for l := range a {
					a[l] = negZero
				}
				for l := range off {
					off[l], w[l] = l, 1
				}
				c := make([]float32, cols)
				for i := range c {
					c[i] = 7
				}
				ConvTaps32(1, cols, k, 1, a, 0, 1, off, w, 1, []float32{bias}, c, 1)
				for i, v := range c {
					if math.Float32bits(v) != math.Float32bits(bias) {
						t.Fatalf("k %d, %d outputs, bias %v: C[%d] = %v (bits %x), want the bias's bits %x", k, cols, bias, i, v, math.Float32bits(v), math.Float32bits(bias))
					}
				}
			}
		}
	}
}

// TestConvGradW32 checks ConvGradW32 against its reference loop to the bit, for depths on
// both sides of ConvTaps32Max and column counts up to the 16 lanes, over calls that carry
// their sums from one to the next, with signed zeros, infinities and NaN; and that nothing of
// S outside the k×n sums is written.
func TestConvGradW32(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	fill := func(v []float32) { fillSpecial32(rng, v, 60) }
	for k := 1; k <= ConvTaps32Max+1; k++ {
		for _, n := range []int{1, 3, 15, 16} {
			for _, shape := range [][2]int{{1, 1}, {3, 7}, {2, 28}, {1, 300}, {11, 29}} {
				rows, cols := shape[0], shape[1]
				sa := 1 + (k+n)%3
				off := make([]int, k)
				for l := range off { // windows of three kernel rows, 7 apart, with gaps
					off[l] = l/3*7 + l%3
				}
				span := off[k-1] + 1
				ra := (cols-1)*sa + span + 2
				lddy := n + 3
				a, dy := make([]float32, rows*ra+span), make([]float32, rows*cols*lddy)
				fill(a)
				fill(dy)
				got, want := make([]float32, k*16), make([]float32, k*16)
				fill(got)
				for l := 0; l < k; l++ { // outside the k×n sums: a marker
					for o := n; o < 16; o++ {
						got[l*16+o] = -7
					}
				}
				copy(want, got)
				for call := 0; call < 3; call++ { // the sums carried over three calls
					ConvGradW32(rows, cols, k, n, a, ra, sa, off, dy, lddy, got)
					ConvGradW32Go(rows, cols, k, n, a, ra, sa, off, dy, lddy, want)
				}
				for i := range got {
					if !same32(got[i], want[i]) {
						t.Fatalf("k %d, n %d, %d×%d: S[%d] = %v, want %v", k, n, rows, cols, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// TestFma32 checks Fma32 against x·y + z computed exactly and rounded to the nearest float32
// (math/big): on random operands of close and distant magnitudes, and on one whose sum
// rounded to float64 first lies on a float32 midpoint (1 + 2⁻²⁴ + 2⁻⁶⁴, which rounds up;
// through float64, down to 1).
func TestFma32(t *testing.T) {
	exact := func(x, y, z float32) float32 {
		p := new(big.Float).SetPrec(256).Mul(big.NewFloat(float64(x)), big.NewFloat(float64(y)))
		v, _ := p.Add(p, big.NewFloat(float64(z))).Float32()
		return v
	}
	x, y, z := float32(1+0x1p-20), float32(-0x1p-24*(1-0x1p-20)), float32(1+0x1p-23)
	if got, want := Fma32(x, y, z), exact(x, y, z); got != want || want != z {
		t.Fatalf("Fma32(%v, %v, %v) = %v, want %v", x, y, z, got, want)
	}
	if twice := float32(math.FMA(float64(x), float64(y), float64(z))); twice == z {
		t.Fatalf("the midpoint case rounds correctly through float64 too: it tests nothing")
	}
	rng := rand.New(rand.NewPCG(29, 30))
	for i := 0; i < 200000; i++ {
		x := float32(rng.NormFloat64())
		y := float32(math.Ldexp(rng.NormFloat64(), -rng.IntN(60)))
		z := float32(rng.NormFloat64())
		if y == 0 {
			continue
		}
		if got, want := Fma32(x, y, z), exact(x, y, z); got != want {
			t.Fatalf("Fma32(%v, %v, %v) = %v, want %v", x, y, z, got, want)
		}
	}
}

// fillSpecial32 fills v with normal values and, one in rate, a signed zero, an infinity, NaN
// or a value near the largest float32.
func fillSpecial32(rng *rand.Rand, v []float32, rate int) {
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1e38}
	for i := range v {
		if rng.IntN(rate) == 0 {
			v[i] = special[rng.IntN(len(special))]
		} else {
			v[i] = float32(rng.NormFloat64())
		}
	}
}

// same32 reports whether x and y have the same bits, or are both NaN.
func same32(x, y float32) bool {
	return math.Float32bits(x) == math.Float32bits(y) || x != x && y != y
}
