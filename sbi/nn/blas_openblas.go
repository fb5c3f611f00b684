//go:build openblas

package nn

import "github.com/gosbi/gosbi/sbi/nn/internal/openblas"

const backend = "openblas"

// SetBLASThreads sets the number of threads OpenBLAS uses for one product (1 unless the
// environment variable OPENBLAS_NUM_THREADS says otherwise).
func SetBLASThreads(n int) { openblas.SetThreads(n) }

// BLASThreads returns the number of threads OpenBLAS uses for one product.
func BLASThreads() int { return openblas.Threads() }

// ownKernelFor reports whether a product of m rows with these transpositions runs on the
// package's own kernel (where the CPU has one) instead of OpenBLAS. Forward products (neither
// operand transposed) of tall activations (batched evaluation: 512-row chunks) by small weight
// matrices are faster on the own kernel, which reads full row panels in place (about 1.7× on
// the NPE log-prob and sampling benchmarks); OpenBLAS is faster on training batches of 128 rows
// (NRE step 20% less CPU) and on the transposed products of backward passes.
func ownKernelFor(tA, tB bool, m int) bool { return !tA && !tB && m >= 256 }
