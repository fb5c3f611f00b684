//go:build openblas

package openblas

/*
#cgo LDFLAGS: -lopenblas
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);
*/
import "C"

import (
	"os"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/netlib/blas/netlib"
)

// Every blas64 user in the program, gonum's mat included, runs on OpenBLAS. Unless
// OPENBLAS_NUM_THREADS or OMP_NUM_THREADS says otherwise OpenBLAS runs on one thread: the
// products of SBI networks are small, and OpenBLAS threads that spin while they wait compete
// with the Go scheduler for the same cores.
func init() {
	blas64.Use(netlib.Implementation{})
	if os.Getenv("OPENBLAS_NUM_THREADS") == "" && os.Getenv("OMP_NUM_THREADS") == "" {
		C.openblas_set_num_threads(1)
	}
}

// SetThreads sets the number of threads OpenBLAS uses for one product.
func SetThreads(n int) { C.openblas_set_num_threads(C.int(max(n, 1))) }

// Threads returns the number of threads OpenBLAS uses for one product.
func Threads() int { return int(C.openblas_get_num_threads()) }
