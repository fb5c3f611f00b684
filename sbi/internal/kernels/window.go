package kernels

// The kernels of convolutions and poolings over windows of positions: the selection of a
// max pooling (MaxStep, MaxPairs) and the copies of im2col (CopyRuns).

import "math"

// MaxStep is one comparison of a max pooling: it returns (v, i) when v is larger than the
// float64 whose bits are best, or is NaN where best is not, and (best, at) otherwise, so that
// the first position holding the maximum wins and NaN counts as the largest value. It selects
// by masks instead of a branch: on real data which position wins is a coin toss that a branch
// predictor loses half the time.
func MaxStep(best uint64, at int, v float64, i int) (uint64, int) {
	b := math.Float64frombits(best)
	take := b2u(v > b) | b2u(v != v)&b2u(b == b)
	mask := -take // all ones when v wins
	return best ^ (best^math.Float64bits(v))&mask, at ^ (at^i)&int(mask)
}

// b2u is 1 for true and 0 for false (a SETcc, not a branch).
func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// MaxPairsGo is the max pooling by pairs of a series of rows positions stored channels-last:
// row r of x holds two positions of c channels each (x[r·2c : (r+1)·2c]), and for every
// channel ch
//
//	y[r·c + ch] = max(x[r·2c + ch], x[r·2c + c + ch]),  arg[r·c + ch] = offset + the index of the winner in x,
//
// by MaxStep (the first position wins ties; NaN wins). x holds rows·2c values, y and arg rows·c.
func MaxPairsGo(y []float64, arg []int, x []float64, c, rows, offset int) {
	for r := 0; r < rows; r++ {
		first, second := x[2*r*c:(2*r+1)*c], x[(2*r+1)*c:(2*r+2)*c]
		yr, ar := y[r*c:(r+1)*c], arg[r*c:(r+1)*c]
		for ch, v := range first {
			best, at := MaxStep(math.Float64bits(v), offset+2*r*c+ch, second[ch], offset+(2*r+1)*c+ch)
			yr[ch], ar[ch] = math.Float64frombits(best), at
		}
	}
}

// CopyRunsGo copies n runs of span values, the k-th from src[k·srcStride:] to
// dst[k·dstStride:]: the windows of im2col, whose runs are a kernel row's taps. dst holds at
// least (n−1)·dstStride + span values, src (n−1)·srcStride + span.
func CopyRunsGo(dst, src []float64, n, span, dstStride, srcStride int) {
	for k := 0; k < n; k++ {
		copy(dst[k*dstStride:k*dstStride+span], src[k*srcStride:k*srcStride+span])
	}
}
