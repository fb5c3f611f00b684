//go:build !openblas

package nn

// openblasLinked reports whether this build links OpenBLAS (the openblas tag).
const openblasLinked = false

// SetBLASThreads has no effect in builds without OpenBLAS: the own kernels and gonum's GEMM
// split large products over goroutines by themselves.
func SetBLASThreads(n int) {}

// BLASThreads returns 1 in builds without OpenBLAS (see SetBLASThreads).
func BLASThreads() int { return 1 }
