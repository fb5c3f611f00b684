//go:build amd64 && !noasm

package kernels

//go:noescape
func maxPairsAVX512(y []float64, arg []int, x []float64, c, rows, offset int, tail uint64)

// MaxPairs is MaxPairsGo, eight channels at a time where the CPU has AVX-512 (the same
// values and indices).
func MaxPairs(y []float64, arg []int, x []float64, c, rows, offset int) {
	if !AVX512 || rows <= 0 || c <= 0 {
		MaxPairsGo(y, arg, x, c, rows, offset)
		return
	}
	_, _, _ = x[2*rows*c-1], y[rows*c-1], arg[rows*c-1] // the last values touched, in bounds
	maxPairsAVX512(y, arg, x, c, rows, offset, 1<<(c%8)-1)
}
