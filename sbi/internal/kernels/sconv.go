package kernels

// Tiles32StridedGo is the reference loop of Tiles32Strided, the float32 micro-kernel of the
// float32 convolutions (package nn, conv32.go): it sets blocks tiles of 6×32 of c (row stride
// ldc) to
//
//	C[r, j] = max(S[r, j] + Σ_{l<k} A[r, l]·B[l, j], floor),   S[r, j] = C[r, j] if acc, else bias[j],
//
// for r < 6·blocks, A[r, l] = a[r·ra + l·ka] (a row-major matrix has ra = its row stride and ka
// = 1, a transposed one ra = 1 and ka = its row stride, and rows read in place from a padded
// input overlap) and B[l, j] = b[l·ldb + j] (a packed panel has ldb = 32; rows read in place
// overlap too), summing in float32 in order of l. Only the columns j whose bit
// is set in cols are read from C and written; floor is −Inf (none) or 0 (a fused ReLU). The
// assembly kernel sums with fused multiply-adds, so the two differ by float32 rounding.
func Tiles32StridedGo(blocks, k int, a []float32, ra, ka int, b []float32, ldb int, c []float32, ldc int, bias []float32, floor float32, cols uint32, acc bool) {
	tilesStridedGo(blocks*TileRows32, k, a, ra, ka, b, ldb, c, ldc, bias, floor, cols, acc)
}

// TileRows16 is the height of the narrow float32 micro-tile, 12×16 (Tiles16Strided).
const TileRows16 = 12

// Tiles16StridedGo is the reference loop of Tiles16Strided: Tiles32StridedGo on tiles of
// 12×16 (only the columns below 16 of cols).
func Tiles16StridedGo(blocks, k int, a []float32, ra, ka int, b []float32, ldb int, c []float32, ldc int, bias []float32, floor float32, cols uint32, acc bool) {
	tilesStridedGo(blocks*TileRows16, k, a, ra, ka, b, ldb, c, ldc, bias, floor, cols&0xffff, acc)
}

func tilesStridedGo(rows, k int, a []float32, ra, ka int, b []float32, ldb int, c []float32, ldc int, bias []float32, floor float32, cols uint32, acc bool) {
	for r := 0; r < rows; r++ {
		var s [Panel32]float32
		for l := 0; l < k; l++ {
			v := a[r*ra+l*ka]
			for j := range s {
				if cols>>j&1 != 0 {
					s[j] += v * b[l*ldb+j]
				}
			}
		}
		for j := range s {
			if cols>>j&1 == 0 {
				continue
			}
			y := s[j] + bias[j]
			if acc {
				y = s[j] + c[r*ldc+j]
			}
			if y < floor {
				y = floor
			}
			c[r*ldc+j] = y
		}
	}
}

// ColsMask returns the mask of the first count columns of a tile (count ≤ 32).
func ColsMask(count int) uint32 { return uint32(uint64(1)<<count - 1) }
