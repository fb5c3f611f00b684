package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMaxPairs checks MaxPairs against pairs compared here by the rule of max pooling, for
// channel counts on both sides of the kernel's blocks of eight: values and indices, with ties
// (the first position wins), signed zeros (equal: the first wins) and NaN in either position
// (NaN wins, the first NaN when both are).
func TestMaxPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	special := []float64{0, math.Copysign(0, -1), 1, -1, math.NaN(), math.Inf(1), math.Inf(-1)}
	for _, c := range []int{1, 2, 6, 7, 8, 9, 12, 16, 17, 23} {
		for _, rows := range []int{1, 2, 50} {
			x := make([]float64, 2*rows*c)
			for i := range x {
				if rng.IntN(3) == 0 {
					x[i] = special[rng.IntN(len(special))]
				} else {
					x[i] = float64(rng.IntN(5)) - 2 // small integers: many ties
				}
			}
			y, arg := make([]float64, rows*c+1), make([]int, rows*c+1)
			y[rows*c], arg[rows*c] = 42, 42 // past the end: must stay
			const offset = 1000
			MaxPairs(y[:rows*c], arg[:rows*c], x, c, rows, offset)
			for r := 0; r < rows; r++ {
				for ch := 0; ch < c; ch++ {
					i, j := 2*r*c+ch, (2*r+1)*c+ch
					a, b := x[i], x[j]
					win := i
					if b > a || (math.IsNaN(b) && !math.IsNaN(a)) {
						win = j
					}
					k := r*c + ch
					if math.Float64bits(y[k]) != math.Float64bits(x[win]) || arg[k] != offset+win {
						t.Fatalf("c %d, rows %d: row %d channel %d of (%v, %v): got %v at %d, want %v at %d", c, rows, r, ch, a, b, y[k], arg[k], x[win], offset+win)
					}
				}
			}
			if y[rows*c] != 42 || arg[rows*c] != 42 {
				t.Fatalf("c %d, rows %d: wrote past the end", c, rows)
			}
		}
	}
}

// TestCopyRuns checks CopyRuns against copies written out here, for runs of one to ten
// values (the kernel's masked moves up to eight, the reference beyond), strides on both sides
// of the span, and that nothing between or after the runs is written.
func TestCopyRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	for span := 1; span <= 10; span++ {
		for _, n := range []int{1, 2, 31} {
			for _, strides := range [][2]int{{span, span}, {span + 5, 1}, {9, 2}, {span, 3 * span}} {
				ds, ss := max(strides[0], span), strides[1]
				src := make([]float64, (n-1)*ss+span)
				for i := range src {
					src[i] = rng.NormFloat64()
				}
				dst := make([]float64, (n-1)*ds+span+1)
				for i := range dst {
					dst[i] = -7
				}
				want := append([]float64(nil), dst...)
				for k := 0; k < n; k++ {
					for j := 0; j < span; j++ {
						want[k*ds+j] = src[k*ss+j]
					}
				}
				CopyRuns(dst[:len(dst)-1], src, n, span, ds, ss)
				for i := range dst {
					if dst[i] != want[i] {
						t.Fatalf("span %d, %d runs, strides %d, %d: dst[%d] = %v, want %v", span, n, ds, ss, i, dst[i], want[i])
					}
				}
			}
		}
	}
}
