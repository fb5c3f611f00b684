//go:build !amd64 || noasm

package kernels

import "math"

// Tile6x8 is TileGo with nr = 8, all columns and no floor.
func Tile6x8(k int, a []float64, rs, cs int, b, c []float64, ldc int, d []float64, ldd int) {
	TileGo(8, k, a, rs, cs, b, c, ldc, d, ldd, 1<<8-1, math.Inf(-1))
}

// Tile6x16 is TileGo with nr = 16.
func Tile6x16(k int, a []float64, rs, cs int, b, c []float64, ldc int, d []float64, ldd int, cols int, floor float64) {
	TileGo(16, k, a, rs, cs, b, c, ldc, d, ldd, cols, floor)
}
