//go:build !openblas

package nn

const backend = "gonum"

// SetBLASThreads has no effect in the pure-Go build: gonum's GEMM splits large products over
// goroutines by itself.
func SetBLASThreads(n int) {}

// BLASThreads returns 1 in the pure-Go build (see SetBLASThreads).
func BLASThreads() int { return 1 }

// ownKernelFor reports whether a product of m rows with these transpositions runs on the
// package's own kernel (where the CPU has one): in the pure-Go build always.
func ownKernelFor(tA, tB bool, m int) bool { return true }
