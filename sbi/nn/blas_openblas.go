//go:build openblas

package nn

import "github.com/gosbi/gosbi/sbi/nn/internal/openblas"

const backend = "openblas"

// SetBLASThreads sets the number of threads OpenBLAS uses for one product (1 unless the
// environment variable OPENBLAS_NUM_THREADS says otherwise).
func SetBLASThreads(n int) { openblas.SetThreads(n) }

// BLASThreads returns the number of threads OpenBLAS uses for one product.
func BLASThreads() int { return openblas.Threads() }
