//go:build openblas

package nn

import "github.com/gosbi/gosbi/sbi/nn/internal/openblas"

// openblasLinked reports whether this build links OpenBLAS (the openblas tag): matmul.go
// then gives it the products its rule assigns to it.
const openblasLinked = true

// SetBLASThreads sets the number of threads OpenBLAS uses for one product (1 unless the
// environment variable OPENBLAS_NUM_THREADS says otherwise).
func SetBLASThreads(n int) { openblas.SetThreads(n) }

// BLASThreads returns the number of threads OpenBLAS uses for one product.
func BLASThreads() int { return openblas.Threads() }
