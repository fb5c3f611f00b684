//go:build openblas

package nn

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

const backend = "openblas"

// In the openblas build every blas64 user in the program, gonum's mat included, runs on
// OpenBLAS. Unless OPENBLAS_NUM_THREADS says otherwise OpenBLAS runs on one thread: the
// products of SBI networks are small, and OpenBLAS threads that spin while they wait compete
// with the Go scheduler for the same cores.
func init() {
	blas64.Use(netlib.Implementation{})
	if os.Getenv("OPENBLAS_NUM_THREADS") == "" && os.Getenv("OMP_NUM_THREADS") == "" {
		C.openblas_set_num_threads(1)
	}
}

// SetBLASThreads sets the number of threads OpenBLAS uses for one product.
func SetBLASThreads(n int) {
	if n < 1 {
		n = 1
	}
	C.openblas_set_num_threads(C.int(n))
}

// BLASThreads returns the number of threads OpenBLAS uses for one product.
func BLASThreads() int { return int(C.openblas_get_num_threads()) }
