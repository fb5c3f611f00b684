package diag

import (
	"fmt"
	"math"
	"sort"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/internal/mmd"
	"github.com/gosbi/gosbi/sbi/internal/pairs"
)

// The sample metrics of sbibm (Lueckmann et al., "Benchmarking Simulation-Based Inference",
// AISTATS 2021) beside C2ST, as its code computes them (sbibm/metrics/mmd.py with the
// defaults its benchmark used, and sbibm/metrics/ppc.py), so that a quality table can be read
// against every column of the paper.

// MMD is sbibm's maximum mean discrepancy between reference samples x and algorithm samples y
// (the benchmark's "MMD" column): the unbiased estimate of MMD² (Gretton et al. 2012, eq. 3)
//
//	(1/(n(n−1)))·Σ_{i≠j} k(xᵢ, xⱼ) + (1/(m(m−1)))·Σ_{i≠j} k(yᵢ, yⱼ) − (2/(nm))·Σᵢⱼ k(xᵢ, yⱼ)
//
// with the Gaussian kernel k(a, b) = exp(−‖a − b‖²/(2σ²)) and σ the median of the distances
// between distinct rows of x (torch.median: the lower of the two middle values), on the
// samples as given (sbibm's benchmark did not z-score for MMD). It can be slightly negative.
// The n²+m²+nm kernel evaluations run on all cores; the median is exact, found in passes over
// the distances with bounded memory. It returns an error for fewer than 2 rows in a set,
// different widths or non-finite values.
func MMD(x, y *mat.Dense) (float64, error) {
	if x == nil || y == nil {
		return 0, fmt.Errorf("diag: MMD needs two sample sets, got nil")
	}
	n, d := x.Dims()
	m, dy := y.Dims()
	if d != dy {
		return 0, fmt.Errorf("diag: MMD: x has %d columns but y has %d", d, dy)
	}
	if n < 2 || m < 2 {
		return 0, fmt.Errorf("diag: MMD needs at least 2 samples in each set, got %d and %d", n, m)
	}
	for _, s := range []*mat.Dense{x, y} {
		if r, bad := firstNonFiniteRow(s); bad {
			return 0, fmt.Errorf("diag: MMD: sample %d holds NaN or infinite values: %v", r, s.RawRowView(r))
		}
	}
	sigma := MedianPairDistance(x)
	if !(sigma > 0) {
		return 0, fmt.Errorf("diag: MMD: the reference samples are all equal (median distance 0): the kernel has no bandwidth")
	}
	g := -1 / (2 * sigma * sigma)
	kxx := kernelSum(x, x, g, true)
	kyy := kernelSum(y, y, g, true)
	kxy := kernelSum(x, y, g, false)
	fn, fm := float64(n), float64(m)
	return kxx/(fn*(fn-1)) + kyy/(fm*(fm-1)) - 2*kxy/(fn*fm), nil
}

// kernelSum is Σᵢⱼ exp(g·‖aᵢ − bⱼ‖²), over i ≠ j when offDiag (a and b the same set, using the
// symmetry), in parallel over the rows of a.
func kernelSum(a, b *mat.Dense, g float64, offDiag bool) float64 {
	n, _ := a.Dims()
	m, _ := b.Dims()
	var total float64
	var mu sync.Mutex
	rowsInParallel(n, func(i int) {
		ai := a.RawRowView(i)
		var s float64
		start := 0
		if offDiag {
			start = i + 1
		}
		for j := start; j < m; j++ {
			s += math.Exp(g * mmd.SqDist(ai, b.RawRowView(j)))
		}
		if offDiag {
			s *= 2
		}
		mu.Lock()
		total += s
		mu.Unlock()
	})
	return total
}

// rowsInParallel calls f(i) for i in [0, n) on GOMAXPROCS goroutines, in blocks of rows.
func rowsInParallel(n int, f func(i int)) {
	w := min(runtimeProcs(), n)
	var wg sync.WaitGroup
	next := make(chan int, w)
	go func() {
		for i := range n {
			next <- i
		}
		close(next)
	}()
	for range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	wg.Wait()
}

// medianCollectLimit is the most distances MedianPairDistance holds in memory at once (8 bytes
// each, 32 MB).
const medianCollectLimit = 4_000_000

// MedianPairDistance is the median of the Euclidean distances between distinct rows of a, the
// lower of the two middle values for an even count (torch.median(torch.pdist(a)), the median
// heuristic). It is exact: with more than medianCollectLimit distances it narrows the range
// that holds the median by counting distances in 2¹⁶ bins per pass, then selects among the few
// left. a needs at least 2 rows.
func MedianPairDistance(a *mat.Dense) float64 {
	n, _ := a.Dims()
	total := n * (n - 1) / 2
	k := (total - 1) / 2 // 0-based rank of the lower median
	lo, hi := 0.0, math.Inf(1)
	below := 0 // distances < lo
	for {
		// Count the distances in [lo, hi); collect them when few enough.
		var inRange int
		var mu sync.Mutex
		var collected []float64
		var dmin, dmax = math.Inf(1), 0.0
		rowsInParallel(n, func(i int) {
			ai := a.RawRowView(i)
			c := 0
			lmin, lmax := math.Inf(1), 0.0
			for j := i + 1; j < n; j++ {
				v := math.Sqrt(mmd.SqDist(ai, a.RawRowView(j)))
				if v >= lo && v < hi {
					c++
					lmin, lmax = math.Min(lmin, v), math.Max(lmax, v)
				}
			}
			mu.Lock()
			inRange += c
			dmin, dmax = math.Min(dmin, lmin), math.Max(dmax, lmax)
			mu.Unlock()
		})
		if inRange <= medianCollectLimit {
			collected = make([]float64, 0, inRange)
			for i := range n {
				ai := a.RawRowView(i)
				for j := i + 1; j < n; j++ {
					if v := math.Sqrt(mmd.SqDist(ai, a.RawRowView(j))); v >= lo && v < hi {
						collected = append(collected, v)
					}
				}
			}
			sort.Float64s(collected)
			return collected[k-below]
		}
		if dmin == dmax {
			return dmin
		}
		// Histogram of [dmin, dmax] in bins; keep the bin holding rank k.
		const bins = 1 << 16
		width := (dmax - dmin) / bins
		counts := make([]int, bins+1)
		workers := min(runtimeProcs(), n)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				local := make([]int, bins+1)
				for i := w; i < n; i += workers { // rows interleaved: balanced triangle
					ai := a.RawRowView(i)
					for j := i + 1; j < n; j++ {
						v := math.Sqrt(mmd.SqDist(ai, a.RawRowView(j)))
						if v >= lo && v < hi {
							local[min(bins, int((v-dmin)/width))]++
						}
					}
				}
				mu.Lock()
				for b, c := range local {
					counts[b] += c
				}
				mu.Unlock()
			}()
		}
		wg.Wait()
		acc := below
		for b, c := range counts {
			if acc+c > k {
				below = acc
				lo = dmin + float64(b)*width
				hi = dmin + float64(b+1)*width
				if b == bins {
					hi = math.Nextafter(dmax, math.Inf(1))
				}
				break
			}
			acc += c
		}
	}
}

// MedianDistance is sbibm's MEDDIST: the median (numpy's: the mean of the two middle values
// for an even count) of the Euclidean distances between the observation xo and posterior
// predictive simulations (one per row; sbibm simulates one per posterior draw), on the data
// as given. It returns an error for no simulations, a wrong width, or non-finite values (drop
// failed simulations first).
func MedianDistance(predictive *mat.Dense, xo []float64) (float64, error) {
	if predictive == nil {
		return 0, fmt.Errorf("diag: median distance needs predictive simulations, got nil")
	}
	n, d := predictive.Dims()
	if d != len(xo) {
		return 0, fmt.Errorf("diag: median distance: simulations have %d values, the observation %d", d, len(xo))
	}
	if n == 0 {
		return 0, fmt.Errorf("diag: median distance needs at least one simulation")
	}
	if !pairs.AllFinite(xo) {
		return 0, fmt.Errorf("diag: median distance: the observation holds NaN or infinite values")
	}
	dist := make([]float64, n)
	for i := range n {
		row := predictive.RawRowView(i)
		if !pairs.AllFinite(row) {
			return 0, fmt.Errorf("diag: median distance: simulation %d holds NaN or infinite values; drop failed simulations first", i)
		}
		dist[i] = math.Sqrt(mmd.SqDist(row, xo))
	}
	sort.Float64s(dist)
	if n%2 == 1 {
		return dist[n/2], nil
	}
	return (dist[n/2-1] + dist[n/2]) / 2, nil
}
