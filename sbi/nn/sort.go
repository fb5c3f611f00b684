package nn

import (
	"cmp"
	"slices"
)

// SortRows returns a copy of a with every row sorted ascending. The gradient of each output
// element flows back to the input element it came from (the sort's permutation), which is
// the gradient of the sorted values almost everywhere. Ties keep their original order.
func (tp *Tape) SortRows(a *Tensor) *Tensor {
	g := tp.grads(a)
	out := tp.tensor(a.Rows, a.Cols, g)
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
		y := out.Row(i)
		for j, k := range p {
			y[j] = row[k]
		}
	}
	if g {
		tp.record(backSortRows, out, a, nil, nil).idx = perm
	}
	return out
}

func backSortRows(n *node) {
	c := n.a.Cols
	for i := 0; i < n.a.Rows; i++ {
		ga := n.a.Grad[i*c : (i+1)*c]
		for j, k := range n.idx[i*c : (i+1)*c] {
			ga[k] += n.out.Grad[i*c+j]
		}
	}
}
