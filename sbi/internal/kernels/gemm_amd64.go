//go:build amd64 && !noasm

package kernels

import (
	"math"
	"math/bits"
)

//go:noescape
func kernel6x8(k int, a *float64, rs, cs int, b, c *float64, ldc int, d *float64, ldd int)

//go:noescape
func kernel6x16(k int, a *float64, rs, cs int, b, c *float64, ldc int, d *float64, ldd int, cols int, floor float64)

// Tile6x8 is TileGo with nr = 8, all columns and no floor, on the AVX2 kernel where the CPU
// has it.
func Tile6x8(k int, a []float64, rs, cs int, b, c []float64, ldc int, d []float64, ldd int) {
	tileBounds(8, 8, k, a, rs, cs, b, c, ldc, d, ldd)
	if !AVX2 {
		TileGo(8, k, a, rs, cs, b, c, ldc, d, ldd, 1<<8-1, math.Inf(-1))
		return
	}
	kernel6x8(k, &a[0], rs, cs, &b[0], &c[0], ldc, &d[0], ldd)
}

// Tile6x16 is TileGo with nr = 16 on the AVX-512 kernel where the CPU has it (masked loads
// and stores: columns outside cols are neither read nor written).
func Tile6x16(k int, a []float64, rs, cs int, b, c []float64, ldc int, d []float64, ldd int, cols int, floor float64) {
	tileBounds(16, bits.Len16(uint16(cols)), k, a, rs, cs, b, c, ldc, d, ldd)
	if !AVX512 {
		TileGo(16, k, a, rs, cs, b, c, ldc, d, ldd, cols, floor)
		return
	}
	kernel6x16(k, &a[0], rs, cs, &b[0], &c[0], ldc, &d[0], ldd, cols, floor)
}
