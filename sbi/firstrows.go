package sbi

import (
	"fmt"

	"github.com/gosbi/gosbi/sbi/internal/safe"
	"gonum.org/v1/gonum/mat"
)

// FirstRows returns the first n rows of m as a view that shares m's storage: a simulation
// budget taken from a larger pool of simulations, so that budgets are nested (the n pairs of a
// smaller budget are the first pairs of a larger one), as the calibration papers' code draws
// them. It returns an error when m is nil or n is not between 1 and the number of rows of m.
func FirstRows(m *mat.Dense, n int) (*mat.Dense, error) {
	if m == nil {
		return nil, fmt.Errorf("sbi: FirstRows: the matrix is nil")
	}
	r, c := m.Dims()
	if n < 1 || n > r {
		return nil, fmt.Errorf("sbi: FirstRows: n = %d, expected 1…%d (the rows of the matrix)", n, r)
	}
	return m.Slice(0, n, 0, c).(*mat.Dense), nil
}

// MustFirstRows is FirstRows for notebook cells: it returns the result alone and panics with
// FirstRows's error.
func MustFirstRows(m *mat.Dense, n int) *mat.Dense {
	return safe.Must(FirstRows(m, n))
}
