//go:build unix

// The benchmarks report CPU time from getrusage(2).

package diag

import (
	"context"
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

// cpuTime is the user and system CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds the CPU seconds per operation, which tells the parallel overhead apart from
// the contention of a busy machine: with perfect scaling it does not grow with the workers.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric((cpuTime()-start).Seconds()/float64(b.N), "cpu-s/op")
}

// workerCounts is 1 and GOMAXPROCS (when larger), for the speed-up over one core.
func workerCounts() []int {
	if p := runtime.GOMAXPROCS(0); p > 1 {
		return []int{1, p}
	}
	return []int{1}
}

// BenchmarkRankCoverage10k: sample/rank estimator over 10,000 test pairs of the 2-D conjugate
// Gaussian model with 1000 posterior draws per pair.
func BenchmarkRankCoverage10k(b *testing.B) {
	m := gaussModel{dim: 2, tau: 2, s: 0.5, width: 1}
	theta, x := m.simulate(1, 10000)
	for _, w := range workerCounts() {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			start := cpuTime()
			for b.Loop() {
				if _, err := RankCoverage(m, theta, x, RankConfig{Samples: 1000, Seed: 1, Workers: w}); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkGridCoverage10k: grid estimator (90×90 grid, the papers' protocol) over 10,000
// test pairs of the 2-D box model with its exact truncated-Gaussian posterior.
func BenchmarkGridCoverage10k(b *testing.B) {
	m := boxModel{dim: 2, lo: -3, hi: 3, s: 0.6, width: 1}
	theta, x := m.simulate(1, 10000)
	for _, w := range workerCounts() {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			start := cpuTime()
			for b.Loop() {
				if _, err := GridCoverage(m, theta, x, GridConfig{Lower: []float64{-3, -3}, Upper: []float64{3, 3}, Workers: w}); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkC2ST10k: C2ST of 10,000 against 10,000 2-D samples (sbibm's sizes).
func BenchmarkC2ST10k(b *testing.B) {
	x := gaussianSample(1, 10000, []float64{0, 0})
	y := gaussianSample(2, 10000, []float64{0.3, 0})
	for _, w := range workerCounts() {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			start := cpuTime()
			for b.Loop() {
				if _, err := C2STWith(x, y, C2STConfig{Seed: 1, Workers: w}); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start)
		})
	}
}

// lc2stBenchData is the calibration set of the L-C2ST benchmarks: 1000 pairs of the 2-D
// conjugate Gaussian model (θ and x in R²) and an estimator 0.8 times too narrow.
func lc2stBenchData() (gaussModel, *mat.Dense, *mat.Dense) {
	m := gaussModel{dim: 2, tau: 2, s: 1, width: 0.8}
	theta, x := m.simulate(1, 1000)
	return m, theta, x
}

// BenchmarkLC2ST1k: L-C2ST at one observation with sbi's settings (100 null classifiers,
// MLPs of two hidden layers of 20 units, 10,000 evaluation draws) on 1000 calibration pairs:
// 101 classifiers trained on 2000 rows of 4 inputs.
func BenchmarkLC2ST1k(b *testing.B) {
	m, theta, x := lc2stBenchData()
	start := cpuTime()
	for b.Loop() {
		if _, err := LocalC2ST(m, theta, x, []float64{0.5, -0.5}, LC2STConfig{Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// BenchmarkC2ST1kJoint: C2ST of the same size, the 1000 rows (θ̃ᵢ, xᵢ) of the estimator
// against the 1000 rows (θᵢ, xᵢ) of the joint (5 folds, classifiers of two layers of 40 units
// on 1600 rows of 4 inputs).
func BenchmarkC2ST1kJoint(b *testing.B) {
	m, theta, x := lc2stBenchData()
	est, err := onePosteriorDraw(context.Background(), m, x, 1)
	if err != nil {
		b.Fatal(err)
	}
	p, q := mat.NewDense(1000, 4, nil), mat.NewDense(1000, 4, nil)
	for i := range 1000 {
		copy(p.RawRowView(i), est.RawRowView(i))
		copy(p.RawRowView(i)[2:], x.RawRowView(i))
		copy(q.RawRowView(i), theta.RawRowView(i))
		copy(q.RawRowView(i)[2:], x.RawRowView(i))
	}
	start := cpuTime()
	for b.Loop() {
		if _, err := C2STWith(p, q, C2STConfig{Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}
