// Package mmd holds the maximum mean discrepancy with a Gaussian kernel that package sbi uses
// to check, when a posterior is formed, whether the observation lies where the estimator was
// trained, and that package diag exposes as a test: the squared MMD between one point and a
// reference sample, with a p-value calibrated on held-out points of the same distribution,
// and the median heuristic for the kernel's bandwidth.
//
// For a point x and a reference sample r₁…r_n, with k(a, b) = exp(−‖a − b‖²/(2σ²)),
//
//	MMD²(δ_x, P_n) = k(x, x) − (2/n)·Σᵢ k(x, rᵢ) + (1/n²)·Σᵢⱼ k(rᵢ, rⱼ)
//
// (Gretton et al. 2012, eq. 5, the biased estimate with one point on one side). The first term
// is 1 and the last does not depend on x, so the statistic orders points by how little kernel
// mass the reference puts near them. Its null distribution, that of a fresh point of the
// reference's own distribution, is estimated from calibration points drawn from that
// distribution but kept out of the reference: the p-value (1 + #{calibration statistics ≥
// t})/(m + 1) is exact (P(p ≤ α) ≤ α) when x and the m calibration points are exchangeable.
package mmd

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// Reference is a reference sample with its bandwidth and the sorted statistics of its
// calibration points. It is safe for concurrent use.
type Reference struct {
	ref       *mat.Dense
	sigma     float64
	refMean   float64   // (1/n²)·Σᵢⱼ k(rᵢ, rⱼ)
	cal       []float64 // statistics of the calibration points, increasing
	calLogMin float64   // the smallest LogMeanKernel of the calibration points
}

// MedianDistance is the median of the Euclidean distances between distinct rows of a (the
// lower median for an even count, as torch.median), the median heuristic's bandwidth. It
// needs at least two rows. Its memory is bounded whatever the rows: up to directPairs
// distances are held and selected among; beyond, the distances are computed again in a few
// passes that narrow the median's bits (see radixMedian), so that a reference of 50,000 rows
// does not hold its 1.25·10⁹ distances. Both give the same value.
func MedianDistance(a *mat.Dense) float64 {
	n, _ := a.Dims()
	total := n * (n - 1) / 2
	if total > directPairs {
		return radixMedian(a, (total-1)/2)
	}
	d := make([]float64, 0, total)
	eachDistance(a, func(v float64) { d = append(d, v) })
	return selectKth(d, (len(d)-1)/2)
}

// directPairs is the most distances MedianDistance holds at once (32 MiB); tests lower it.
var directPairs = 1 << 22

// eachDistance calls f with the Euclidean distance of every pair of distinct rows of a, in the
// same order and computed the same way on every call.
func eachDistance(a *mat.Dense, f func(float64)) {
	n, _ := a.Dims()
	for i := 0; i < n; i++ {
		ri := a.RawRowView(i)
		for j := i + 1; j < n; j++ {
			f(math.Sqrt(SqDist(ri, a.RawRowView(j))))
		}
	}
}

// radixMedian returns the k-th smallest (0-based) distance between distinct rows of a without
// holding them all: the bits of a distance, which is never negative, order as its value, so
// each pass counts the distances whose leading bits match those found so far by their next 16
// bits and keeps the digit holding the k-th; once at most directPairs distances share the
// leading bits, one more pass collects them and selectKth picks among them.
func radixMedian(a *mat.Dense, k int) float64 {
	var counts [1 << 16]int
	var prefix uint64 // the leading bits found, those below shift zero
	for shift := 48; shift >= 0; shift -= 16 {
		clear(counts[:])
		eachDistance(a, func(v float64) {
			if b := math.Float64bits(v); matches(b, prefix, shift) {
				counts[b>>shift&0xFFFF]++
			}
		})
		digit := 0
		for ; k >= counts[digit]; digit++ {
			k -= counts[digit]
		}
		prefix |= uint64(digit) << shift
		if shift > 0 && counts[digit] <= directPairs {
			vals := make([]float64, 0, counts[digit])
			eachDistance(a, func(v float64) {
				if math.Float64bits(v)>>shift == prefix>>shift {
					vals = append(vals, v)
				}
			})
			return selectKth(vals, k)
		}
	}
	return math.Float64frombits(prefix)
}

// matches reports whether the bits of b above bit shift+15 are those of prefix (all bits
// match for shift 48: a shift by 64 gives 0).
func matches(b, prefix uint64, shift int) bool {
	return b>>(shift+16) == prefix>>(shift+16)
}

// selectKth returns the k-th smallest value of v (0-based), reordering v (Hoare's
// quickselect with the median of three as pivot: linear time on average).
func selectKth(v []float64, k int) float64 {
	lo, hi := 0, len(v)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if v[mid] < v[lo] {
			v[mid], v[lo] = v[lo], v[mid]
		}
		if v[hi] < v[lo] {
			v[hi], v[lo] = v[lo], v[hi]
		}
		if v[hi] < v[mid] {
			v[hi], v[mid] = v[mid], v[hi]
		}
		pivot := v[mid]
		i, j := lo, hi
		for i <= j {
			for v[i] < pivot {
				i++
			}
			for v[j] > pivot {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return v[k]
		}
	}
	return v[k]
}

// SqDist is the squared Euclidean distance of a and b.
func SqDist(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		e := v - b[i]
		s += e * e
	}
	return s
}

// New builds the reference from the rows of ref and calibrates it on the rows of cal (points
// of the same distribution, not in ref). The bandwidth σ is the median distance between rows
// of ref; when that is 0 (a reference of repeated points) σ is 1. It returns an error when ref
// has fewer than 2 rows, cal has none, or the widths differ.
func New(ref, cal *mat.Dense) (*Reference, error) {
	n, d := ref.Dims()
	m, dc := cal.Dims()
	if n < 2 || m < 1 {
		return nil, fmt.Errorf("mmd: %d reference and %d calibration points, expected at least 2 and 1", n, m)
	}
	if d != dc {
		return nil, fmt.Errorf("mmd: reference points have %d values and calibration points %d", d, dc)
	}
	sigma := MedianDistance(ref)
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		sigma = 1
	}
	r := &Reference{ref: ref, sigma: sigma}
	var s float64
	for i := 0; i < n; i++ {
		ri := ref.RawRowView(i)
		s += 1 // k(rᵢ, rᵢ)
		for j := i + 1; j < n; j++ {
			s += 2 * r.kernel(ri, ref.RawRowView(j))
		}
	}
	r.refMean = s / float64(n*n)
	r.cal = make([]float64, m)
	r.calLogMin = math.Inf(1)
	for i := range r.cal {
		r.cal[i] = r.Statistic(cal.RawRowView(i))
		r.calLogMin = math.Min(r.calLogMin, r.LogMeanKernel(cal.RawRowView(i)))
	}
	sort.Float64s(r.cal)
	return r, nil
}

func (r *Reference) kernel(a, b []float64) float64 {
	return math.Exp(-SqDist(a, b) / (2 * r.sigma * r.sigma))
}

// Statistic is MMD²(δ_x, P_n) of the package documentation. x must have the reference's width.
func (r *Reference) Statistic(x []float64) float64 {
	n, _ := r.ref.Dims()
	var s float64
	for i := 0; i < n; i++ {
		s += r.kernel(x, r.ref.RawRowView(i))
	}
	return 1 - 2*s/float64(n) + r.refMean
}

// PValue is (1 + #{calibration statistics ≥ t})/(m + 1), and NaN for a NaN statistic (which
// no comparison orders: it has no p-value, and callers say why).
func (r *Reference) PValue(t float64) float64 {
	if math.IsNaN(t) {
		return math.NaN()
	}
	below := sort.SearchFloat64s(r.cal, t) // calibration statistics < t
	return float64(1+len(r.cal)-below) / float64(len(r.cal)+1)
}

// Bandwidth is the kernel's σ.
func (r *Reference) Bandwidth() float64 { return r.sigma }

// Calibration returns the sorted statistics of the calibration points.
func (r *Reference) Calibration() []float64 { return append([]float64(nil), r.cal...) }

// Sizes returns the number of reference and calibration points.
func (r *Reference) Sizes() (ref, cal int) {
	n, _ := r.ref.Dims()
	return n, len(r.cal)
}

// Width is the number of values of a point.
func (r *Reference) Width() int {
	_, d := r.ref.Dims()
	return d
}

// LogMeanKernel is log((1/n)·Σᵢ k(x, rᵢ)), the log of the kernel mass the reference puts near
// x (a kernel density estimate up to a constant), computed in log space so that it stays finite
// far from the reference, where the statistic saturates at 1 + (1/n²)·Σᵢⱼ k(rᵢ, rⱼ).
func (r *Reference) LogMeanKernel(x []float64) float64 {
	n, _ := r.ref.Dims()
	top := math.Inf(-1)
	e := make([]float64, n)
	for i := range n {
		e[i] = -SqDist(x, r.ref.RawRowView(i)) / (2 * r.sigma * r.sigma)
		top = math.Max(top, e[i])
	}
	var s float64
	for _, v := range e {
		s += math.Exp(v - top)
	}
	return top + math.Log(s/float64(n))
}

// LogKernelRatio is LogMeanKernel(x) minus the smallest LogMeanKernel of the calibration
// points: below 0 when x receives less kernel mass than every calibration point, and below
// −ln 100 when less than a hundredth of the least any of them receives.
func (r *Reference) LogKernelRatio(x []float64) float64 { return r.LogMeanKernel(x) - r.calLogMin }
