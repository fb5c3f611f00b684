package nn

import "fmt"

// ---- row selection for batched evaluations ----
//
// A batched pass evaluates a network on many rows at once and then picks or places rows by
// index: the context of observation i repeated for each of its proposal draws, or the results
// of a subset of rows written back into a full batch. These operations move rows; their
// backward passes add the gradient rows back where they came from.

// GatherRows returns the tensor whose row k is row rows[k] of a (indices may repeat, in any
// order). The gradient of a row of a is the sum of the gradients of the rows taken from it.
func (tp *Tape) GatherRows(a *Tensor, rows []int) *Tensor {
	g := tp.grads(a)
	out := tp.tensor(len(rows), a.Cols, g)
	c := a.Cols
	for k, r := range rows {
		if r < 0 || r >= a.Rows {
			panic(fmt.Sprintf("nn: GatherRows: row index %d outside a %d×%d tensor", r, a.Rows, a.Cols))
		}
		copy(out.Data[k*c:(k+1)*c], a.Data[r*c:(r+1)*c])
	}
	if g {
		idx := tp.scratchInts(len(rows))
		copy(idx, rows)
		tp.record(backGatherRows, out, a, nil, nil).idx = idx
	}
	return out
}

func backGatherRows(n *node) {
	a, out, c := n.a, n.out, n.a.Cols
	for k, r := range n.idx {
		ga := a.Grad[r*c : (r+1)*c]
		for j, g := range out.Grad[k*c : (k+1)*c] {
			ga[j] += g
		}
	}
}

// ScatterRows returns a copy of base in which row rows[k] is replaced by row k of src, for
// every row of src; rows must be distinct. The gradient of a replaced row of base is zero, that
// of any other row passes through, and row k of src receives the gradient of row rows[k].
func (tp *Tape) ScatterRows(base, src *Tensor, rows []int) *Tensor {
	if base.Cols != src.Cols || src.Rows != len(rows) {
		panic(fmt.Sprintf("nn: ScatterRows: base %d×%d, src %d×%d and %d row indices: want equal columns and one index per src row",
			base.Rows, base.Cols, src.Rows, src.Cols, len(rows)))
	}
	g := tp.grads(base, src)
	out := tp.tensor(base.Rows, base.Cols, g)
	copy(out.Data, base.Data)
	c := base.Cols
	seen := tp.scratchInts(base.Rows) // 1 + position in src of each replaced row, 0 otherwise
	clear(seen)
	for k, r := range rows {
		if r < 0 || r >= base.Rows {
			panic(fmt.Sprintf("nn: ScatterRows: row index %d outside a %d×%d tensor", r, base.Rows, base.Cols))
		}
		if seen[r] != 0 {
			panic(fmt.Sprintf("nn: ScatterRows: row %d given twice, want distinct rows", r))
		}
		seen[r] = k + 1
		copy(out.Data[r*c:(r+1)*c], src.Data[k*c:(k+1)*c])
	}
	if g {
		tp.record(backScatterRows, out, base, src, nil).idx = seen
	}
	return out
}

func backScatterRows(n *node) {
	base, src, out, c := n.a, n.b, n.out, n.a.Cols
	for r, k := range n.idx {
		gy := out.Grad[r*c : (r+1)*c]
		var dst []float64
		switch {
		case k > 0 && src.Grad != nil:
			dst = src.Grad[(k-1)*c : k*c]
		case k == 0 && base.Grad != nil:
			dst = base.Grad[r*c : (r+1)*c]
		default:
			continue
		}
		for j, g := range gy {
			dst[j] += g
		}
	}
}
