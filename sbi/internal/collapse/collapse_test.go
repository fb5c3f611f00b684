package collapse

import "testing"

// TestColumn: the first column of equal values, skipping the columns listed and the values
// beyond each row's columns (a stride wider than the row), never with fewer than two rows.
func TestColumn(t *testing.T) {
	for _, c := range []struct {
		name               string
		data               []float64
		rows, cols, stride int
		skip               []int
		col                int
		ok                 bool
	}{
		{"none", []float64{1, 2, 3, 4}, 2, 2, 2, nil, 0, false},
		{"column 1", []float64{1, 5, 2, 5}, 2, 2, 2, nil, 1, true},
		{"first of two", []float64{7, 5, 7, 5}, 2, 2, 2, nil, 0, true},
		{"column 0 skipped", []float64{7, 5, 7, 5}, 2, 2, 2, []int{0}, 1, true},
		{"all skipped", []float64{7, 5, 7, 5}, 2, 2, 2, []int{0, 1}, 0, false},
		{"one row", []float64{1, 2}, 1, 2, 2, nil, 0, false},
		{"stride", []float64{1, 3, 9, 2, 3, 8}, 2, 2, 3, nil, 1, true},
		{"stride, padding equal", []float64{1, 2, 9, 3, 4, 9}, 2, 2, 3, nil, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			col, ok := Column(c.data, c.rows, c.cols, c.stride, c.skip)
			if col != c.col || ok != c.ok {
				t.Errorf("Column: %d, %v; want %d, %v", col, ok, c.col, c.ok)
			}
		})
	}
}
