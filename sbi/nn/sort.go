package nn

import (
	"cmp"
	"slices"
)

// SortRows returns a copy of a with every row sorted ascending. The gradient of each output
// element flows back to the input element it came from (the sort's permutation), which is
// the gradient of the sorted values almost everywhere. Ties keep their original order.
func (tp *Tape) SortRows(a *Tensor) *Tensor {
	perm := tp.scratchInts(a.Len())
	c := a.Cols
	for i := 0; i < a.Rows; i++ {
		row := a.Row(i)
		p := perm[i*c : (i+1)*c]
		for j := range p {
			p[j] = j
		}
		slices.SortFunc(p, func(x, y int) int {
			if r := cmp.Compare(row[x], row[y]); r != 0 {
				return r
			}
			return x - y
		})
	}
	return tp.gatherColumns(a, perm, c)
}
