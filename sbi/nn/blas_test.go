package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/internal/cputime"
)

// TestGemmMatchesLoops checks the product kernel of the build (the packed FMA kernel, gonum
// or OpenBLAS) against triple loops for every transpose combination, several β and sizes that
// are not multiples of the tile sizes, including a depth above one packed block and a product
// large enough to be split over goroutines. Both sum the
// same products in different orders, so they agree to a few ulps of k·max|a||b| (1e-12 here).
func TestGemmMatchesLoops(t *testing.T) {
	for _, w := range kernelWidths() { // every micro-kernel this CPU can run
		restore := useKernelWidth(w)
		testGemm(t)
		restore()
	}
}

func testGemm(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	runenv.SetThreads(3) // large products are split over goroutines even with GOMAXPROCS=1
	defer runenv.SetThreads(0)
	for _, sz := range [][3]int{{1, 1, 1}, {6, 8, 3}, {7, 9, 300}, {37, 29, 41}, {12, 16, 600}, {3, 0, 2}, {4, 5, 0}, {100, 70, 300}} {
		m, n, k := sz[0], sz[1], sz[2]
		for _, tA := range []bool{false, true} {
			for _, tB := range []bool{false, true} {
				for _, beta := range []float64{0, 1, 0.5} {
					a := make([]float64, m*k)
					b := make([]float64, k*n)
					c := make([]float64, m*n)
					for _, s := range [][]float64{a, b, c} {
						for i := range s {
							s[i] = 2*rng.Float64() - 1
						}
					}
					want := make([]float64, m*n)
					for i := 0; i < m; i++ {
						for j := 0; j < n; j++ {
							s := 0.0
							for l := 0; l < k; l++ {
								av, bv := a[i*k+l], b[l*n+j]
								if tA {
									av = a[l*m+i]
								}
								if tB {
									bv = b[j*k+l]
								}
								s += av * bv
							}
							want[i*n+j] = s + beta*c[i*n+j]
						}
					}
					lda, ldb := k, n
					if tA {
						lda = m
					}
					if tB {
						ldb = k
					}
					gemm(tA, tB, m, n, k, 1, a, max(lda, 1), b, max(ldb, 1), beta, c, max(n, 1))
					name := fmt.Sprintf("%s (kernel width %d) %d×%d×%d tA=%v tB=%v β=%v", Backend(), kernelWidth(), m, n, k, tA, tB, beta)
					for i := range want {
						if math.Abs(c[i]-want[i]) > 1e-12 {
							t.Fatalf("%s: C[%d] = %v, loops give %v", name, i, c[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestGemmBias checks C = A·B + 1·biasᵀ against loops, with C holding NaN beforehand (the
// result must not read it), for tile-aligned and ragged sizes, a depth above one packed block,
// no depth at all, and m ≥ 256 (where the openblas build also uses the packed kernel).
func TestGemmBias(t *testing.T) {
	for _, w := range kernelWidths() {
		restore := useKernelWidth(w)
		rng := rand.New(rand.NewPCG(9, 10))
		runenv.SetThreads(3)
		for _, sz := range [][3]int{{6, 16, 5}, {7, 9, 3}, {37, 29, 41}, {12, 16, 600}, {5, 4, 0}, {300, 37, 70}, {512, 64, 64}} {
			m, n, k := sz[0], sz[1], sz[2]
			a, b, bias := make([]float64, m*k), make([]float64, k*n), make([]float64, n)
			for _, s := range [][]float64{a, b, bias} {
				for i := range s {
					s[i] = 2*rng.Float64() - 1
				}
			}
			ldc := n + 3 // three columns beyond the product that must stay untouched
			c := make([]float64, m*ldc)
			for i := range c {
				c[i] = math.NaN()
				if i%ldc >= n {
					c[i] = 7
				}
			}
			gemmBias(m, n, k, a, max(k, 1), b, max(n, 1), bias, c, ldc)
			r := make([]float64, m*n) // the same product followed by ReLU
			for i := range r {
				r[i] = math.NaN()
			}
			gemmBiasAct(m, n, k, a, max(k, 1), b, max(n, 1), bias, r, fnReLU)
			name := fmt.Sprintf("%s (kernel width %d) %d×%d×%d", Backend(), kernelWidth(), m, n, k)
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					want := bias[j]
					for l := 0; l < k; l++ {
						want += a[i*k+l] * b[l*n+j]
					}
					if got := c[i*ldc+j]; !(math.Abs(got-want) <= 1e-12) {
						t.Fatalf("%s: C[%d,%d] = %v, loops give %v", name, i, j, got, want)
					}
					if got := r[i*n+j]; !(math.Abs(got-max(want, 0)) <= 1e-12) {
						t.Fatalf("%s: ReLU(C)[%d,%d] = %v, loops give %v", name, i, j, got, max(want, 0))
					}
				}
				for j := n; j < ldc; j++ {
					if c[i*ldc+j] != 7 {
						t.Fatalf("%s: column %d of row %d, beyond the product, was written: %v", name, j, i, c[i*ldc+j])
					}
				}
			}
		}
		runenv.SetThreads(0)
		restore()
	}
}

// TestGemmThreadsDeterministic checks that splitting a product over goroutines does not
// change a single bit: every element is computed by one goroutine in the same order.
func TestGemmThreadsDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	m, n, k := 300, 70, 200
	a, b := make([]float64, m*k), make([]float64, k*n)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	run := func(threads int) []float64 {
		runenv.SetThreads(threads)
		defer runenv.SetThreads(0)
		c := make([]float64, m*n)
		gemm(false, false, m, n, k, 1, a, k, b, n, 0, c, n)
		return c
	}
	c1, c4 := run(1), run(4)
	for i := range c1 {
		if math.Float64bits(c1[i]) != math.Float64bits(c4[i]) {
			t.Fatalf("C[%d] = %v on one goroutine, %v on four", i, c1[i], c4[i])
		}
	}
}

// BenchmarkGEMM reports the achieved GFLOP/s (2mnk flops per product) of the build's kernel on
// the shapes of SBI networks, per second of wall time and per second of CPU time (the latter
// is the useful number on a shared machine; with GOMAXPROCS=1 it is the single-core rate).
func BenchmarkGEMM(b *testing.B) {
	for _, sz := range [][5]int{{256, 64, 64, 0, 0}, {256, 64, 64, 0, 1}, {64, 64, 256, 1, 0}, {512, 128, 128, 0, 0}, {512, 128, 8, 0, 0}, {1024, 1024, 1024, 0, 0}} {
		m, n, k, tA, tB := sz[0], sz[1], sz[2], sz[3] == 1, sz[4] == 1
		lda, ldb := k, n
		if tA {
			lda = m
		}
		if tB {
			ldb = k
		}
		op := map[bool]string{false: "N", true: "T"}
		b.Run(fmt.Sprintf("%s%s_%dx%dx%d", op[tA], op[tB], m, n, k), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			a, bb, c := make([]float64, m*k), make([]float64, k*n), make([]float64, m*n)
			for i := range a {
				a[i] = rng.Float64()
			}
			for i := range bb {
				bb[i] = rng.Float64()
			}
			cpu := cputime.Run(b, func() { gemm(tA, tB, m, n, k, 1, a, lda, bb, ldb, 0, c, n) })
			flops := 2 * float64(m*n*k) * float64(b.N)
			b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			b.ReportMetric(flops/cpu, "GFLOP/cpu-s")
		})
	}
}
