package kernels

// Panel32 and TileRows32 are the width and height of the float32 micro-tile.
const (
	Panel32    = 32
	TileRows32 = 6
)

// Tiles32Go is the reference loop of the float32 micro-kernel Tiles32: it sets blocks tiles
// of 6×32 of c (row stride ldc) to
//
//	C[r, j] = max(bias[j] + Σ_{l<k} A[r, l]·Bp[l, j], floor)
//
// for the 6·blocks×k rows of a (row stride lda) and the packed k×32 panel Bp[l, j] =
// b[l·32 + j], summing in float32 in order of l. floor is −Inf (none) or 0 (a fused ReLU). The
// assembly kernel sums with fused multiply-adds, so the two differ by float32 rounding.
func Tiles32Go(blocks, k int, a []float32, lda int, b, c []float32, ldc int, bias []float32, floor float32) {
	for r := 0; r < blocks*TileRows32; r++ {
		var acc [Panel32]float32
		for l := 0; l < k; l++ {
			v := a[r*lda+l]
			for j, w := range b[l*Panel32 : (l+1)*Panel32] {
				acc[j] += v * w
			}
		}
		for j := range acc {
			y := acc[j] + bias[j]
			if y < floor {
				y = floor
			}
			c[r*ldc+j] = y
		}
	}
}

// Tiles32to64Go is the reference loop of Tiles32to64: Tiles32Go storing the first count
// columns of each tile as float64.
func Tiles32to64Go(blocks, k int, a []float32, lda int, b []float32, c []float64, ldc int, bias []float32, floor float32, count int) {
	t := make([]float32, TileRows32*Panel32)
	for blk := 0; blk < blocks; blk++ {
		Tiles32Go(1, k, a[blk*TileRows32*lda:], lda, b, t, Panel32, bias, floor)
		for r := 0; r < TileRows32; r++ {
			for j, v := range t[r*Panel32 : r*Panel32+count] {
				c[(blk*TileRows32+r)*ldc+j] = float64(v)
			}
		}
	}
}
