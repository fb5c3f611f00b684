package sbi

import (
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestFirstRows(t *testing.T) {
	pool := mat.NewDense(4, 2, []float64{1, 2, 3, 4, 5, 6, 7, 8})
	for _, n := range []int{1, 3, 4} {
		got, err := FirstRows(pool, n)
		if err != nil {
			t.Fatalf("FirstRows(4×2, %d): %v", n, err)
		}
		want := mat.NewDense(n, 2, []float64{1, 2, 3, 4, 5, 6, 7, 8}[:2*n])
		if !mat.Equal(got, want) {
			t.Errorf("FirstRows(4×2, %d) = %v, want %v", n, mat.Formatted(got), mat.Formatted(want))
		}
	}
	view, _ := FirstRows(pool, 2)
	pool.Set(1, 1, -4)
	if view.At(1, 1) != -4 {
		t.Errorf("FirstRows copied the rows; want a view that shares the pool's storage")
	}
	for _, c := range []struct {
		m *mat.Dense
		n int
	}{
		{pool, 0}, {pool, -1}, {pool, 5}, {nil, 1},
	} {
		if got, err := FirstRows(c.m, c.n); err == nil {
			t.Errorf("FirstRows(%v, %d) = %v, want an error", c.m, c.n, got)
		}
	}
}
