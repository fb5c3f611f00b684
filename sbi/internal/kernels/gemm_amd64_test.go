//go:build amd64 && !noasm

package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestTilesMatchReference checks the matrix-product micro-kernels the CPU can run against
// their reference loop TileGo, bit for bit (both start the sum at 0 and add the products in the same order
// with fused multiply-adds, then D, then the floor): packed and in-place panels of A, packed
// panels of B and (AVX-512) rows of B read in place with their stride, depths 1 to 300,
// accumulation into C and a bias row, all columns and a narrow masked panel, no floor and a
// fused ReLU, NaN and −0 kept. Elements outside the tile must stay untouched, and B's values
// outside the masked columns (NaN here) must not reach it.
func TestTilesMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, nr := range GemmWidths() {
		if nr == 0 {
			t.Skip("no AVX2: the micro-kernels do not run here")
		}
		for _, k := range []int{1, 2, 7, 300} {
			for _, layout := range []string{"packed", "rows"} {
				for _, bias := range []bool{false, true} {
					for _, cols := range []int{nr, 5} {
						for _, floor := range []float64{math.Inf(-1), 0} {
							for _, ldb := range []int{nr, nr + 7} {
								if nr == 8 && (cols != nr || floor == 0 || ldb != nr) {
									continue // kernel6x8 has neither masks nor a floor, and reads packed panels
								}
								name := fmt.Sprintf("6×%d k=%d %s bias=%v cols=%d floor=%v ldb=%d", nr, k, layout, bias, cols, floor, ldb)
								checkTile(t, name, rng, nr, k, layout == "rows", bias, cols, floor, ldb)
							}
						}
					}
				}
			}
		}
	}
}

func checkTile(t *testing.T, name string, rng *rand.Rand, nr, k int, inPlace, bias bool, cols int, floor float64, ldb int) {
	t.Helper()
	rs, cs, lenA := 1, MR, k*MR
	if inPlace {
		rs, cs, lenA = k+3, 1, MR*(k+3)
	}
	a, b := make([]float64, lenA), make([]float64, (k-1)*ldb+nr)
	for _, s := range [][]float64{a, b} {
		for i := range s {
			s[i] = 2*rng.Float64() - 1
		}
	}
	for i := range b {
		if i%ldb >= cols {
			b[i] = math.NaN() // outside the columns read
		}
	}
	a[0], b[1] = math.NaN(), math.Copysign(0, -1)
	ldc := nr + 3
	got, want := make([]float64, MR*ldc), make([]float64, MR*ldc)
	for i := range got {
		got[i] = rng.NormFloat64()
	}
	copy(want, got)
	dGot, dWant, ldd := got, want, ldc
	if bias {
		dGot = make([]float64, nr)
		for i := range dGot {
			dGot[i] = rng.NormFloat64()
		}
		dWant, ldd = dGot, 0
	}
	mask := 1<<cols - 1
	TileGo(nr, k, a, rs, cs, b, ldb, want, ldc, dWant, ldd, mask, floor)
	if nr == 8 {
		kernel6x8(k, &a[0], rs, cs, &b[0], &got[0], ldc, &dGot[0], ldd)
	} else {
		kernel6x16(k, &a[0], rs, cs, &b[0], &got[0], ldc, &dGot[0], ldd, mask, floor, ldb)
	}
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s (AVX2 %v, AVX-512 %v): C[%d, %d] = %v, the reference loop gives %v", name, AVX2, AVX512, i/ldc, i%ldc, got[i], want[i])
		}
	}
}
