package quantile

import "testing"

// The values are R's quantile(c(1, 2, 3, 10), p, type = 7).
func TestSorted(t *testing.T) {
	s := []float64{1, 2, 3, 10}
	for _, c := range []struct{ p, want float64 }{
		{0, 1}, {0.25, 1.75}, {0.5, 2.5}, {0.9, 7.9}, {1, 10}, {-0.1, 1}, {1.1, 10},
	} {
		if got := Sorted(s, c.p); got < c.want-1e-12 || got > c.want+1e-12 {
			t.Errorf("Sorted(%v, %v) = %v, want %v", s, c.p, got, c.want)
		}
	}
	if got := Sorted([]float64{4}, 0.3); got != 4 {
		t.Errorf("one value: %v, want 4", got)
	}
}
