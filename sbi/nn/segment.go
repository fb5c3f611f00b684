package nn

import "fmt"

// ---- pooling over sets ----
//
// A batch of sets (i.i.d. trials, point clouds, a varying number per example) is stored as
// segments: the elements of all examples are the rows of one tensor, example i owning rows
// offsets[i] up to offsets[i+1]; offsets has one entry more than there are examples, starts
// at 0 and ends at the number of rows. A network applied row by row to the elements (an MLP,
// a Linear) sees every element alike; a segment pooling then reduces each example's rows to
// one, which is invariant under permutations of the elements (the sum decomposition of
// DeepSets, Zaheer et al. 2017, Theorem 2). GatherRows with the example of each element
// broadcasts per-example rows back to the elements.

// SegmentSum returns the n×cols sums of the rows of each segment of x (n = len(offsets)−1); an
// empty segment sums to 0.
func (tp *Tape) SegmentSum(x *Tensor, offsets []int) *Tensor {
	return tp.segmentPool("SegmentSum", x, offsets, segSum)
}

// SegmentMean returns the n×cols means of the rows of each segment; segments must not be
// empty (an empty one panics rather than give 0/0).
func (tp *Tape) SegmentMean(x *Tensor, offsets []int) *Tensor {
	return tp.segmentPool("SegmentMean", x, offsets, segMean)
}

// SegmentMax returns the n×cols columnwise maxima of the rows of each segment; segments must
// not be empty (an empty one panics: it has no maximum). The gradient goes to the first row
// holding the maximum; NaN counts as the largest value (the first NaN gets the gradient).
func (tp *Tape) SegmentMax(x *Tensor, offsets []int) *Tensor {
	return tp.segmentPool("SegmentMax", x, offsets, segMax)
}

const (
	segSum = iota
	segMean
	segMax
)

// checkOffsets panics unless offsets describe segments of the rows of x.
func checkOffsets(op string, x *Tensor, offsets []int, allowEmpty bool) {
	if len(offsets) < 1 || offsets[0] != 0 || offsets[len(offsets)-1] != x.Rows {
		panic(fmt.Sprintf("nn: %s: offsets %s for %d rows, want n+1 offsets from 0 to %d", op, shortInts(offsets), x.Rows, x.Rows))
	}
	for i := 1; i < len(offsets); i++ {
		if offsets[i] < offsets[i-1] || (!allowEmpty && offsets[i] == offsets[i-1]) {
			want := "nondecreasing"
			if !allowEmpty {
				want = "increasing (every segment needs an element)"
			}
			panic(fmt.Sprintf("nn: %s: offsets[%d] = %d after %d, want %s offsets", op, i, offsets[i], offsets[i-1], want))
		}
	}
}

func shortInts(v []int) string {
	if len(v) <= 6 {
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("[%d %d %d … %d] (%d values)", v[0], v[1], v[2], v[len(v)-1], len(v))
}

func (tp *Tape) segmentPool(op string, x *Tensor, offsets []int, kind int) *Tensor {
	checkOffsets(op, x, offsets, kind == segSum)
	n, c := len(offsets)-1, x.Cols
	gr := tp.grads(x)
	out := tp.tensor(n, c, gr)
	var arg []int
	if kind == segMax {
		arg = tp.scratchInts(n * c)
	}
	for i := 0; i < n; i++ {
		lo, hi := offsets[i], offsets[i+1]
		y := out.Row(i)
		if kind == segMax {
			a := arg[i*c : (i+1)*c]
			copy(y, x.Row(lo))
			for j := range a {
				a[j] = lo*c + j
			}
			for r := lo + 1; r < hi; r++ {
				for j, v := range x.Row(r) {
					if v > y[j] || (v != v && y[j] == y[j]) {
						y[j], a[j] = v, r*c+j
					}
				}
			}
			continue
		}
		clear(y)
		for r := lo; r < hi; r++ {
			for j, v := range x.Row(r) {
				y[j] += v
			}
		}
		if kind == segMean {
			inv := 1 / float64(hi-lo)
			for j := range y {
				y[j] *= inv
			}
		}
	}
	if gr {
		nd := tp.record(backSegment, out, x, nil, nil)
		nd.i = kind
		if kind == segMax {
			nd.idx = arg
		} else {
			nd.idx = tp.scratchInts(len(offsets))
			copy(nd.idx, offsets)
		}
	}
	return out
}

func backSegment(nd *node) {
	x, out := nd.a, nd.out
	c := x.Cols
	if nd.i == segMax {
		for k, p := range nd.idx {
			x.Grad[p] += out.Grad[k]
		}
		return
	}
	offsets := nd.idx
	for i := 0; i+1 < len(offsets); i++ {
		lo, hi := offsets[i], offsets[i+1]
		gy := out.Grad[i*c : (i+1)*c]
		w := 1.0
		if nd.i == segMean {
			w = 1 / float64(hi-lo)
		}
		for r := lo; r < hi; r++ {
			gx := x.Grad[r*c : (r+1)*c]
			for j, v := range gy {
				gx[j] += v * w
			}
		}
	}
}
