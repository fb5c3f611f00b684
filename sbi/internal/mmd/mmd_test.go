package mmd

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestStatisticClosedForm checks MMD² against the formula on three points by hand.
func TestStatisticClosedForm(t *testing.T) {
	ref := mat.NewDense(3, 1, []float64{0, 1, 3})
	// pairwise distances 1, 3, 2: the median is 2
	r, err := New(ref, mat.NewDense(1, 1, []float64{0.5}))
	if err != nil {
		t.Fatal(err)
	}
	if r.Bandwidth() != 2 {
		t.Fatalf("bandwidth %v, want the median distance 2", r.Bandwidth())
	}
	k := func(d float64) float64 { return math.Exp(-d * d / 8) }
	refMean := (3 + 2*(k(1)+k(3)+k(2))) / 9
	x := 2.0
	want := 1 - 2*(k(2)+k(1)+k(1))/3 + refMean
	if got := r.Statistic([]float64{x}); math.Abs(got-want) > 1e-15 {
		t.Errorf("MMD² = %v, want %v", got, want)
	}
}

// TestPValue checks the calibrated p-value: (1 + #{calibration ≥ t})/(m + 1).
func TestPValue(t *testing.T) {
	r := &Reference{cal: []float64{0.1, 0.2, 0.3, 0.4}}
	for _, c := range []struct{ t, p float64 }{{0.05, 1}, {0.2, 4.0 / 5}, {0.25, 3.0 / 5}, {0.5, 1.0 / 5}} {
		if got := r.PValue(c.t); math.Abs(got-c.p) > 1e-15 {
			t.Errorf("PValue(%v) = %v, want %v", c.t, got, c.p)
		}
	}
	// a NaN statistic (a NaN summary) has no p-value: not the smallest one, which callers
	// would read as "outside"
	if got := r.PValue(math.NaN()); !math.IsNaN(got) {
		t.Errorf("PValue(NaN) = %v, want NaN", got)
	}
}

// TestLevelAndPower: points from the reference's distribution are rejected at α = 0.05 at most
// α + 3 SE of the time over 400 draws (SE = √(α(1−α)/400) = 0.011); a point shifted by 4 SD
// in one of 3 coordinates is rejected at least 90% of the time (measured: 381 of 400, 0.95).
func TestLevelAndPower(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	gauss := func(n int) *mat.Dense {
		m := mat.NewDense(n, 3, nil)
		for i := range n {
			for j := range 3 {
				m.Set(i, j, rng.NormFloat64())
			}
		}
		return m
	}
	r, err := New(gauss(300), gauss(199))
	if err != nil {
		t.Fatal(err)
	}
	const reps, alpha = 400, 0.05
	rejected, detected := 0, 0
	for range reps {
		x := gauss(1).RawRowView(0)
		if r.PValue(r.Statistic(x)) <= alpha {
			rejected++
		}
		x[1] += 4
		if r.PValue(r.Statistic(x)) <= alpha {
			detected++
		}
	}
	se := math.Sqrt(alpha * (1 - alpha) / reps)
	if rate := float64(rejected) / reps; rate > alpha+3*se {
		t.Errorf("level: rejected %.3f of in-distribution points, want ≤ %.3f", rate, alpha+3*se)
	}
	if detected < 9*reps/10 {
		t.Errorf("power: detected %d of %d points shifted by 4 SD, want ≥ 90%%", detected, reps)
	}
}

// TestSelectKth checks quickselect against sorting, with ties.
func TestSelectKth(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for _, n := range []int{1, 2, 3, 10, 101, 1000} {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(rng.IntN(n/2 + 1)) // many ties
		}
		s := append([]float64(nil), v...)
		sort.Float64s(s)
		for _, k := range []int{0, n / 2, (n - 1) / 2, n - 1} {
			w := append([]float64(nil), v...)
			if got := selectKth(w, k); got != s[k] {
				t.Errorf("n %d: k-th %d = %v, want %v", n, k, got, s[k])
			}
		}
	}
}

// TestLogKernelRatio checks the log-space kernel mass against the direct sum, and that it stays
// finite where the kernel underflows.
func TestLogKernelRatio(t *testing.T) {
	ref := mat.NewDense(3, 1, []float64{0, 1, 3})
	r, err := New(ref, mat.NewDense(2, 1, []float64{0.5, 2.5}))
	if err != nil {
		t.Fatal(err)
	}
	k := func(d float64) float64 { return math.Exp(-d * d / 8) }
	want := math.Log((k(2) + k(1) + k(1)) / 3)
	if got := r.LogMeanKernel([]float64{2}); math.Abs(got-want) > 1e-14 {
		t.Errorf("log mean kernel %v, want %v", got, want)
	}
	calMin := math.Min(math.Log((k(0.5)+k(0.5)+k(2.5))/3), math.Log((k(2.5)+k(1.5)+k(0.5))/3))
	if got := r.LogKernelRatio([]float64{2}); math.Abs(got-(want-calMin)) > 1e-14 {
		t.Errorf("log ratio %v, want %v", got, want-calMin)
	}
	if far := r.LogKernelRatio([]float64{300}); math.IsInf(far, 0) || far > -1e3 {
		t.Errorf("log ratio 300 away: %v, want finite and very negative", far)
	}
}
